import { createHash } from 'node:crypto';
import { limits } from '@platform/schema';
import type { IntegrationContract } from '@platform/schema/manifest';
import type { CookieSpec } from '../auth/cookies.ts';
import type { Database } from '../db/database.ts';
import { OAUTH_CALLBACK_PATH } from '../http/paths.ts';
import { addSeconds, type Clock, systemClock } from '../kernel/clock.ts';
import { randomSecret, safeEqual, sha256 } from '../kernel/crypto.ts';
import type { ConnectLink } from './connect-links.ts';
import type { CredentialCipher } from './credential-cipher.ts';

/**
 * The cookie that binds the pending sign-in of `state` to the browser that submitted the connect
 * page (RFC 6749 10.12): HttpOnly, sent to the OAuth callback only, and named after the state so
 * that sign-ins started in several tabs of one browser do not replace each other's.
 */
export function oauthBrowserCookie(state: string): CookieSpec {
  return {
    name: `platform_oauth_${sha256(state).slice(0, 16)}`,
    path: OAUTH_CALLBACK_PATH,
    sameSite: 'Lax',
  };
}

/** Why the callback could not take a sign-in. */
export type TakeRefusal =
  /** Unknown, taken already or expired. */
  | 'unusable'
  /** It came back to a browser other than the one that started it; it is spent now. */
  | 'other-browser';

/** An OAuth sign-in on its way: what the connect link allowed, and what the callback needs. */
export interface PendingSignIn {
  /** The link's permission (its `connectionId` is the connection reconnected, if any). */
  readonly link: Omit<ConnectLink, 'expiresAt'>;
  /** The connection the sign-in stores: a new id, or the one reconnected. */
  readonly connectionId: string;
  /** The credential values entered before signing in. */
  readonly values: Readonly<Record<string, string>>;
  /** The PKCE verifier; `null` when the contract turns PKCE off. */
  readonly codeVerifier: string | null;
}

interface Row {
  provider_app_id: string;
  integration: string;
  kind: ConnectLink['kind'];
  account_id: string;
  connection_id: string;
  replacing: boolean;
  bind_app_id: string | null;
  bind_slot: string | null;
  sealed: string;
  browser_hash: string | null;
}

/** The S256 PKCE challenge of `verifier` (RFC 7636 4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Where the person signs in at the provider (RFC 6749 4.1.1, RFC 7636 4.3): `authorizationUrl`
 * with the client id, the redirect URI, the scopes, the one-time `state` and, with PKCE, the
 * S256 challenge of `codeVerifier`.
 */
export function authorizationRequest(
  oauth: NonNullable<IntegrationContract['authorization']>,
  redirectUri: string,
  state: string,
  codeVerifier: string | null,
): string {
  const url = new URL(oauth.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', oauth.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  if (oauth.scopes.length > 0) url.searchParams.set('scope', oauth.scopes.join(' '));
  url.searchParams.set('state', state);
  if (codeVerifier !== null) {
    url.searchParams.set('code_challenge', pkceChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.href;
}

/**
 * The OAuth sign-ins between the connect page and the provider's redirect back (spec 2.10):
 * each keyed by the SHA-256 of its one-time `state`, with the PKCE verifier and the entered
 * credential values sealed, and the SHA-256 of the secret in the starting browser's
 * {@link oauthBrowserCookie}; taken once by the callback, completed only in that browser, and
 * unusable after `limits.integration.oauthStateSeconds`.
 */
export class OAuthStates {
  readonly #db: Database;
  readonly #cipher: CredentialCipher;
  readonly #clock: Clock;

  constructor(central: Database, cipher: CredentialCipher, clock: Clock = systemClock) {
    this.#db = central;
    this.#cipher = cipher;
    this.#clock = clock;
  }

  /**
   * Stores `pending` for the browser holding `browserSecret` (the value of its
   * {@link oauthBrowserCookie}); answers its one-time `state`.
   */
  async create(pending: PendingSignIn, browserSecret: string): Promise<string> {
    const state = randomSecret();
    const hash = sha256(state);
    const { link } = pending;
    const secrets: Record<string, string> = { values: JSON.stringify(pending.values) };
    if (pending.codeVerifier !== null) secrets.codeVerifier = pending.codeVerifier;
    // Expired sign-ins are swept here rather than by a timer: they are only ever read by state.
    await this.#db.query('DELETE FROM platform.oauth_states WHERE expires_at <= $1', [
      this.#clock.now(),
    ]);
    await this.#db.query(
      `INSERT INTO platform.oauth_states
         (state_hash, provider_app_id, integration, kind, account_id, connection_id, replacing,
          bind_app_id, bind_slot, sealed, expires_at, browser_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        hash,
        link.providerAppId,
        link.integration,
        link.kind,
        link.accountId,
        pending.connectionId,
        link.connectionId !== null,
        link.bind?.appId ?? null,
        link.bind?.slot ?? null,
        this.#cipher.seal(scope(hash), secrets),
        addSeconds(this.#clock.now(), limits.integration.oauthStateSeconds),
        sha256(browserSecret),
      ],
    );
    return state;
  }

  /**
   * Takes the sign-in of `state` (once) for the browser presenting `browserSecret`. The sign-in
   * is spent either way: a code that came back to another browser belongs to whoever signed in
   * there, and must never complete the sign-in anywhere (`other-browser`).
   */
  async take(
    state: string,
    browserSecret: string | undefined,
  ): Promise<PendingSignIn | TakeRefusal> {
    const hash = sha256(state);
    const { rows } = await this.#db.query<Row>(
      `DELETE FROM platform.oauth_states WHERE state_hash = $1 AND expires_at > $2
       RETURNING provider_app_id, integration, kind, account_id, connection_id, replacing,
                 bind_app_id, bind_slot, sealed, browser_hash`,
      [hash, this.#clock.now()],
    );
    const row = rows[0];
    if (!row) return 'unusable';
    const presented = browserSecret === undefined ? '' : sha256(browserSecret);
    if (row.browser_hash === null || !safeEqual(presented, row.browser_hash)) {
      return 'other-browser';
    }
    const secrets = this.#cipher.open(scope(hash), row.sealed);
    return {
      link: {
        providerAppId: row.provider_app_id,
        integration: row.integration,
        kind: row.kind,
        accountId: row.account_id,
        connectionId: row.replacing ? row.connection_id : null,
        bind:
          row.bind_app_id !== null && row.bind_slot !== null
            ? { appId: row.bind_app_id, slot: row.bind_slot }
            : null,
      },
      connectionId: row.connection_id,
      values: JSON.parse(secrets.values as string) as Record<string, string>,
      codeVerifier: secrets.codeVerifier ?? null,
    };
  }
}

const scope = (stateHash: string) => `oauth-state#${stateHash}`;
