import { PlatformError } from '@platform/errors';
import type { Database, Queryable } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';

/** How long the person has to confirm an onboarding or approval email (spec 5.2.2). */
export const ONBOARDING_HOURS = 24;

/**
 * A retained project request: `organisation_setup_required` (a new address: provisional
 * identity, no app, no credential, until the address is confirmed and a company set up),
 * `approval_required` (an existing account: withheld until the person approves), `ready` (the
 * agent may finish), `finished` (the agent took its credential), `expired` (not confirmed
 * within {@link ONBOARDING_HOURS}).
 */
export type OnboardingState =
  | 'organisation_setup_required'
  | 'approval_required'
  | 'ready'
  | 'finished'
  | 'expired';

/** A project request as its pages and the agent see it. */
export interface OnboardingRequest {
  readonly id: string;
  /** The project: the app the agent builds. */
  readonly appId: string;
  readonly email: string;
  readonly accountId: string;
  /** `new`: the agent created the identity; `existing`: the address had an account. */
  readonly kind: 'new' | 'existing';
  readonly state: OnboardingState;
  readonly confirmed: boolean;
  readonly companySetUp: boolean;
  readonly expiresAt: string;
}

/** Why an onboarding link shows nothing. */
export type OnboardingLinkProblem = 'unknown' | 'used' | 'expired';

interface RequestRow {
  id: string;
  app_id: string;
  email: string;
  account_id: string;
  kind: 'new' | 'existing';
  state: Exclude<OnboardingState, 'expired'>;
  link_used_at: Date | string | null;
  expires_at: Date | string;
  confirmed_at: Date | string | null;
  company_at: Date | string | null;
}

const notFound = () =>
  new PlatformError({
    code: 'ONBOARDING_REQUEST_NOT_FOUND',
    message: 'No onboarding request has this id and claim secret.',
  });

/**
 * The retained project requests of agent-created accounts (spec 5.2), beside the accounts: only
 * the SHA-256 of the one-time email link and of the agent's claim secret are kept.
 */
export class OnboardingRequests {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** Records a request; the link token and the claim secret exist only in the answer. */
  async create(input: {
    readonly appId: string;
    readonly email: string;
    readonly accountId: string;
    readonly kind: 'new' | 'existing';
  }): Promise<{ request: OnboardingRequest; linkToken: string; claimSecret: string }> {
    const linkToken = randomSecret();
    const claimSecret = randomSecret();
    const now = this.#clock.now();
    const { rows } = await this.#db.query<RequestRow>(
      `INSERT INTO platform.onboarding_requests
         (id, app_id, email, account_id, kind, state, link_hash, claim_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [
        newId('onboardingRequest'),
        input.appId,
        input.email,
        input.accountId,
        input.kind,
        input.kind === 'new' ? 'organisation_setup_required' : 'approval_required',
        sha256(linkToken),
        sha256(claimSecret),
        now,
        new Date(now.getTime() + ONBOARDING_HOURS * 3_600_000),
      ],
    );
    return { request: this.#view(rows[0] as RequestRow), linkToken, claimSecret };
  }

  /**
   * Whether a live request for `appId` (neither finished nor past its deadline unconfirmed) is
   * another address's: the project's app id is held for it.
   */
  async heldByAnother(appId: string, email: string): Promise<boolean> {
    const { rows } = await this.#db.query(
      `SELECT 1 FROM platform.onboarding_requests
        WHERE app_id = $1 AND lower(email) <> lower($2) AND state <> 'finished'
          AND (confirmed_at IS NOT NULL OR expires_at > $3)
        LIMIT 1`,
      [appId, email, this.#clock.now()],
    );
    return rows.length > 0;
  }

  /** A request by id. */
  async find(id: string): Promise<OnboardingRequest | undefined> {
    const { rows } = await this.#db.query<RequestRow>(
      'SELECT * FROM platform.onboarding_requests WHERE id = $1',
      [id],
    );
    return rows[0] === undefined ? undefined : this.#view(rows[0]);
  }

  /** The request behind an email link, for its review page; approves nothing. */
  async byLink(token: string): Promise<OnboardingRequest | OnboardingLinkProblem> {
    const row = await this.#byLink(this.#db, token);
    return typeof row === 'string' ? row : this.#view(row);
  }

  /**
   * Uses the email link, once: the address is confirmed (or, for an existing account, the
   * request approved). An existing account that `inCompany` says belongs to the company needs
   * nothing more; any other still sets up or joins one. Answers the request as it now stands.
   */
  useLink(
    token: string,
    inCompany: (accountId: string, tx: Queryable) => Promise<boolean>,
  ): Promise<OnboardingRequest | OnboardingLinkProblem> {
    return this.#db.transaction(async (tx) => {
      const row = await this.#byLink(tx, token, 'FOR UPDATE');
      if (typeof row === 'string') return row;
      const now = this.#clock.now();
      const joined = row.kind === 'existing' && (await inCompany(row.account_id, tx));
      const company = joined ? now : row.company_at;
      const { rows } = await tx.query<RequestRow>(
        `UPDATE platform.onboarding_requests
         SET link_used_at = $2, confirmed_at = $2, company_at = $3,
             state = CASE WHEN $3::timestamptz IS NULL THEN 'organisation_setup_required' ELSE 'ready' END
         WHERE id = $1 RETURNING *`,
        [row.id, now, company],
      );
      return this.#view(rows[0] as RequestRow);
    });
  }

  /** Records that the person set up or joined the company; ready once also confirmed. */
  async companySetUp(id: string): Promise<OnboardingRequest | undefined> {
    const { rows } = await this.#db.query<RequestRow>(
      `UPDATE platform.onboarding_requests
       SET company_at = coalesce(company_at, $2),
           state = CASE WHEN confirmed_at IS NOT NULL AND state <> 'finished' THEN 'ready' ELSE state END
       WHERE id = $1 RETURNING *`,
      [id, this.#clock.now()],
    );
    return rows[0] === undefined ? undefined : this.#view(rows[0]);
  }

  /**
   * The agent's finish: with the claim secret, a `ready` request becomes `finished` and
   * `hand` runs in the same transaction (it mints the agent's credential); any other state is
   * answered as it stands. `ONBOARDING_REQUEST_NOT_FOUND` for a wrong id or secret, or a
   * request of another app than `appId`; `ONBOARDING_REQUEST_EXPIRED` once finished before or
   * past the deadline unconfirmed.
   */
  finish<T>(
    appId: string,
    id: string,
    claimSecret: string,
    hand: (request: OnboardingRequest, tx: Queryable) => Promise<T>,
  ): Promise<{ request: OnboardingRequest; handed?: T }> {
    return this.#db.transaction(async (tx) => {
      const { rows } = await tx.query<RequestRow>(
        `SELECT * FROM platform.onboarding_requests
          WHERE id = $1 AND claim_hash = $2 AND app_id = $3 FOR UPDATE`,
        [id, sha256(claimSecret), appId],
      );
      const row = rows[0];
      if (row === undefined) throw notFound();
      const request = this.#view(row);
      if (request.state === 'expired' || request.state === 'finished') {
        throw new PlatformError({
          code: 'ONBOARDING_REQUEST_EXPIRED',
          message:
            request.state === 'finished'
              ? 'This onboarding was already finished; its credential was handed out once.'
              : `The address was not confirmed within ${ONBOARDING_HOURS} hours; start onboarding again.`,
        });
      }
      if (request.state !== 'ready') return { request };
      const { rows: done } = await tx.query<RequestRow>(
        `UPDATE platform.onboarding_requests SET state = 'finished', finished_at = $2
         WHERE id = $1 RETURNING *`,
        [id, this.#clock.now()],
      );
      const finished = this.#view(done[0] as RequestRow);
      return { request: finished, handed: await hand(finished, tx) };
    });
  }

  async #byLink(
    on: Queryable,
    token: string,
    lock = '',
  ): Promise<RequestRow | OnboardingLinkProblem> {
    const { rows } = await on.query<RequestRow>(
      `SELECT * FROM platform.onboarding_requests WHERE link_hash = $1 ${lock}`,
      [sha256(token)],
    );
    const row = rows[0];
    if (row === undefined) return 'unknown';
    if (row.link_used_at !== null) return 'used';
    if (new Date(row.expires_at) <= this.#clock.now()) return 'expired';
    return row;
  }

  #view(row: RequestRow): OnboardingRequest {
    const expired = row.confirmed_at === null && new Date(row.expires_at) <= this.#clock.now();
    return {
      id: row.id,
      appId: row.app_id,
      email: row.email,
      accountId: row.account_id,
      kind: row.kind,
      state: expired ? 'expired' : row.state,
      confirmed: row.confirmed_at !== null,
      companySetUp: row.company_at !== null,
      expiresAt: new Date(row.expires_at).toISOString(),
    };
  }
}
