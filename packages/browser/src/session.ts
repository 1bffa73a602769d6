import { isJsonObject } from '@platform/errors';
import { browserRoutes } from '@platform/schema/routes';
import { deadline, ensureOk, invalidResponse, type Transport } from './request.ts';
import type { CurrentUser } from './types.ts';

/** The token is refreshed during its final minute (spec 2.1). */
export const REFRESH_WINDOW_MS = 60_000;

/** What an operation sends: the user and their token, or neither when signed out. */
export interface Credentials {
  readonly user: CurrentUser | null;
  readonly token: string | null;
}

/** The private session state of one platform instance and the only way to read it. */
export interface Session {
  /**
   * Current credentials, refreshed first when never loaded, when `force` is set, or when the
   * token is in its final minute. A failed refresh keeps the state; while the old token is
   * still valid it is used, otherwise the failure is thrown.
   */
  readonly credentials: (force?: boolean) => Promise<Credentials>;
}

/**
 * Creates the session state. Token, expiry and user live only in this closure: never in
 * storage, readable cookies or any property an app can reach.
 */
export function createSession(transport: Transport, timeoutMs: number): Session {
  let user: CurrentUser | null = null;
  let token: string | null = null;
  let expiresAt = 0;
  let loaded = false;
  let pending: Promise<void> | undefined;

  const signOut = () => {
    user = token = null;
    expiresAt = 0;
    loaded = true;
  };

  const load = async () => {
    const { method, path } = browserRoutes.session;
    const url = transport.url(path);
    const request = deadline(undefined, timeoutMs);
    try {
      const response = await transport.fetch(url, {
        method,
        credentials: 'include',
        signal: request.signal,
      });
      // A definitive rejection of the session means signed out (spec 3.4); every other
      // failure (5xx, timeout, network) is an error and leaves the state as it was.
      if (response.status === 401) return signOut();
      await ensureOk(response);
      const body: unknown = await response.json().catch((error: unknown) => {
        throw invalidResponse(response.status, error);
      });
      if (!isJsonObject(body)) throw invalidResponse(response.status);
      if (body.user === null) return signOut();
      const expiry = parseExpiry(body.expiresAt);
      if (!isUser(body.user) || typeof body.token !== 'string' || expiry === undefined) {
        throw invalidResponse(response.status);
      }
      user = body.user;
      token = body.token;
      expiresAt = expiry;
      loaded = true;
    } catch (error) {
      throw request.fail(error);
    } finally {
      request.clear();
    }
  };

  // However many operations wait on it, one session request is in flight at a time.
  const refresh = (): Promise<void> => {
    pending ??= load().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  return {
    async credentials(force = false) {
      if (force || !loaded || (token && transport.now() >= expiresAt - REFRESH_WINDOW_MS)) {
        try {
          await refresh();
        } catch (error) {
          if (!(token && transport.now() < expiresAt)) throw error;
        }
      }
      return { user, token };
    },
  };
}

function isUser(value: unknown): value is CurrentUser {
  return (
    isJsonObject(value) &&
    typeof value.id === 'string' &&
    (value.displayName === undefined || typeof value.displayName === 'string') &&
    (value.email === undefined || typeof value.email === 'string')
  );
}

// `expiresAt` is an ISO 8601 time or epoch milliseconds; numbers below 10^12 are taken as
// epoch seconds (JWT `exp` style), which no millisecond time after 2001 can be.
function parseExpiry(value: unknown): number | undefined {
  const ms =
    typeof value === 'number' ? (value < 1e12 ? value * 1000 : value) : Date.parse(String(value));
  return Number.isFinite(ms) ? ms : undefined;
}
