/**
 * Who a request or a data call acts for. The broker resolves it once per request (session,
 * app access token, Function invocation token) and every data, files and log call carries it.
 */
export type Caller =
  /** A signed-in user (an app access token acts as the owner, also a user). */
  | { readonly kind: 'user'; readonly userId: string }
  /** A visitor of a public app without a session. */
  | { readonly kind: 'anonymous' }
  /**
   * A system Function: cron, queue consumer, integration, `platform invoke`. `auth.uid()` stays
   * null; `connectionId` is the active integration connection, if any.
   */
  | { readonly kind: 'system'; readonly connectionId?: string | undefined };

/**
 * Resolves who a browser or token request acts for (sessions and app access tokens). Features
 * take it as a dependency so each can authenticate its own routes without importing the
 * service that implements it.
 */
export type Authenticate = (request: Request) => Promise<Caller>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A user caller. User ids are UUIDs (so `auth.uid()` is a `uuid` and compares with `uuid`
 * columns in RLS policies).
 *
 * @example
 * ```ts
 * const caller = userCaller('6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f');
 * ```
 */
export function userCaller(userId: string): Caller {
  if (!UUID.test(userId)) throw new TypeError(`User ids are UUIDs, got ${JSON.stringify(userId)}`);
  return { kind: 'user', userId: userId.toLowerCase() };
}

/** The anonymous caller of a public app. */
export const anonymousCaller: Caller = Object.freeze({ kind: 'anonymous' });

/** The system caller, optionally acting for an integration connection. */
export function systemCaller(connectionId?: string): Caller {
  return connectionId === undefined ? { kind: 'system' } : { kind: 'system', connectionId };
}

/** The `user` member of a handler context: `{ id }` for users, `null` otherwise. */
export function contextUser(caller: Caller): { id: string } | null {
  return caller.kind === 'user' ? { id: caller.userId } : null;
}
