import { randomInt } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import { addSeconds, type Clock, inMinutes } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';
import type { AccountCredentialInfo } from './account-credentials.ts';
import type { AgentCredentialInfo } from './agent-credentials.ts';
import type { AppTokenInfo, AppTokens } from './app-tokens.ts';

/**
 * What a request asks for: an app access token, an agent credential, or an account credential
 * (`platform login`, asked at `{base_url}` rather than of one app).
 */
export type CredentialKind = 'app_token' | 'agent' | 'account';

/** A credential minted beside the accounts for the account that approved. */
export type IssuedCredential = (AgentCredentialInfo | AccountCredentialInfo) & { token: string };

/**
 * Mints the credential of a request that is not an app access token (an agent credential for
 * an app's requests, an account credential for `{base_url}`'s) for the account that approved.
 */
export type IssueAgentCredential = (accountId: string, name: string) => Promise<IssuedCredential>;

/** The table of the central store that holds `platform login`'s requests. */
export const ACCOUNT_REQUESTS_TABLE = 'account_credential_requests';

/** The scope account credential requests are recorded under: `{base_url}`, no app. */
export const ACCOUNT_REQUEST_SCOPE = '{base_url}';

/** A request as the owner's approval page shows it. */
export interface AppTokenRequestView {
  readonly id: string;
  readonly kind: CredentialKind;
  readonly name: string;
  /** The code the requesting terminal shows, for the owner to compare (`BCDF-GHJK`). */
  readonly userCode: string;
  readonly state: 'pending' | 'approved' | 'denied' | 'claimed' | 'expired';
  readonly expiresAt: string;
}

/** What a requester learns by claiming: still waiting, or the token, once. */
export type AppTokenClaim =
  | { readonly state: 'pending'; readonly expiresAt: string }
  | {
      readonly state: 'approved';
      readonly token: string;
      readonly info: AppTokenInfo | AgentCredentialInfo | AccountCredentialInfo;
    };

interface RequestRow {
  id: string;
  kind: CredentialKind;
  decided_by: string | null;
  name: string;
  user_code: string;
  claim_hash: string;
  state: 'pending' | 'approved' | 'denied' | 'claimed';
  expires_at: Date | string;
}

// Consonants only: no vowels (no words), no 0/O or 1/I to confuse (RFC 8628, 6.1).
const CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';

/**
 * Credentials asked for from a terminal and approved in the browser, in the manner of the OAuth
 * device grant (RFC 8628): app access tokens (the owner approves) and agent credentials (the
 * person the agent will act for approves). The requester gets a claim secret and a short code,
 * the approver types the code on the approval page and approves (or declines), and the
 * requester's next claim mints the credential, once. The value is made at the claim, so it is
 * never stored.
 */
export class AppTokenRequests {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #appId: string;
  readonly #tokens: AppTokens | undefined;
  readonly #issueAgent: IssueAgentCredential;
  readonly #table: string;

  /**
   * `tokens` is the app's, for app access tokens; `undefined` for `{base_url}`'s account
   * requests (`appId` then {@link ACCOUNT_REQUEST_SCOPE}), which live in `table`.
   */
  constructor(
    db: Database,
    clock: Clock,
    appId: string,
    tokens: AppTokens | undefined,
    issueAgent: IssueAgentCredential,
    table = 'app_token_requests',
  ) {
    this.#db = db;
    this.#clock = clock;
    this.#appId = appId;
    this.#tokens = tokens;
    this.#issueAgent = issueAgent;
    this.#table = `platform.${table}`;
  }

  /**
   * Records a request for a credential named `name`; the claim secret is known to the caller
   * only.
   */
  async create(
    name: string,
    kind: CredentialKind = 'app_token',
  ): Promise<AppTokenRequestView & { claimSecret: string }> {
    const claimSecret = randomSecret();
    const now = this.#clock.now();
    const code = Array.from({ length: 8 }, () => CODE_LETTERS[randomInt(CODE_LETTERS.length)]);
    const { rows } = await this.#db.query<RequestRow>(
      `INSERT INTO ${this.#table}
         (id, app_id, name, user_code, claim_hash, state, created_at, expires_at, kind)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8) RETURNING *`,
      [
        newId(
          kind === 'agent'
            ? 'agentRequest'
            : kind === 'account'
              ? 'accountRequest'
              : 'tokenRequest',
        ),
        this.#appId,
        name,
        `${code.slice(0, 4).join('')}-${code.slice(4).join('')}`,
        sha256(claimSecret),
        now,
        addSeconds(now, limits.tokenRequestSeconds),
        kind,
      ],
    );
    return { ...this.#view(rows[0] as RequestRow), claimSecret };
  }

  /** A request of this app by id, for its approval page. */
  async find(id: string): Promise<AppTokenRequestView | undefined> {
    const { rows } = await this.#db.query<RequestRow>(
      `SELECT * FROM ${this.#table} WHERE id = $1 AND app_id = $2`,
      [id, this.#appId],
    );
    return rows[0] === undefined ? undefined : this.#view(rows[0]);
  }

  /**
   * The decision of the account `by` on a pending request; answers the request as it now
   * stands (a decision on one no longer pending changes nothing).
   */
  async decide(id: string, approve: boolean, by: string): Promise<AppTokenRequestView | undefined> {
    await this.#db.query(
      `UPDATE ${this.#table} SET state = $3, decided_by = $5
       WHERE id = $1 AND app_id = $2 AND state = 'pending' AND expires_at > $4`,
      [id, this.#appId, approve ? 'approved' : 'denied', this.#clock.now(), by],
    );
    return this.find(id);
  }

  /**
   * The requester's poll: `pending` until the owner decides, then the token once (minted in
   * the same transaction that marks the request claimed). `TOKEN_REQUEST_NOT_FOUND` for an
   * unknown id or a wrong secret, `TOKEN_REQUEST_DENIED`, `TOKEN_REQUEST_EXPIRED` past the
   * deadline or after the token was handed out.
   */
  async claim(id: string, secret: string): Promise<AppTokenClaim> {
    const claimed = await this.#db.transaction(
      async (tx): Promise<AppTokenClaim | { agent: RequestRow }> => {
        const { rows } = await tx.query<RequestRow>(
          `SELECT * FROM ${this.#table}
         WHERE id = $1 AND app_id = $2 AND claim_hash = $3 FOR UPDATE`,
          [id, this.#appId, sha256(secret)],
        );
        const row = rows[0];
        if (row === undefined) {
          throw new PlatformError({
            code: 'TOKEN_REQUEST_NOT_FOUND',
            message: 'No token request has this id and claim secret.',
          });
        }
        const view = this.#view(row);
        if (view.state === 'denied') {
          throw new PlatformError({
            code: 'TOKEN_REQUEST_DENIED',
            message: `${row.kind === 'app_token' ? 'The owner' : 'The approver'} declined the request for "${row.name}".`,
          });
        }
        if (view.state === 'expired' || view.state === 'claimed') {
          throw new PlatformError({
            code: 'TOKEN_REQUEST_EXPIRED',
            message:
              view.state === 'claimed'
                ? 'This request was already claimed; make a new one.'
                : `The request was not approved within ${inMinutes(limits.tokenRequestSeconds)}; make a new one.`,
          });
        }
        if (view.state === 'pending') return { state: 'pending', expiresAt: view.expiresAt };
        if (row.kind === 'app_token' && this.#tokens !== undefined) {
          const { token, ...info } = await this.#tokens.issue(row.name, tx);
          await tx.query(
            `UPDATE ${this.#table} SET state = 'claimed', token_id = $2 WHERE id = $1`,
            [id, info.id],
          );
          return { state: 'approved', token, info };
        }
        // An agent or account credential lives beside the accounts, maybe in another database:
        // the request is spent first, so a failure afterwards wastes it rather than leaving a
        // credential behind.
        await tx.query(`UPDATE ${this.#table} SET state = 'claimed' WHERE id = $1`, [id]);
        return { agent: row };
      },
    );
    if (!('agent' in claimed)) return claimed;
    const { decided_by: approver, name } = claimed.agent;
    const { token, ...info } = await this.#issueAgent(approver ?? '', name);
    await this.#db.query(`UPDATE ${this.#table} SET token_id = $2 WHERE id = $1`, [id, info.id]);
    return { state: 'approved', token, info };
  }

  #view(row: RequestRow): AppTokenRequestView {
    const expired =
      (row.state === 'pending' || row.state === 'approved') &&
      new Date(row.expires_at) <= this.#clock.now();
    return {
      id: row.id,
      kind: row.kind,
      name: row.name,
      userCode: row.user_code,
      state: expired ? 'expired' : row.state,
      expiresAt: new Date(row.expires_at).toISOString(),
    };
  }
}
