/**
 * The path table of the runtime contract, free of schema code so the browser SDK can import it
 * without pulling in zod. `@platform/schema/contract` pairs each route with its request and
 * response schemas; nothing else restates a path.
 */

import { featureSince } from './sdk-versions.ts';

/** An HTTP method used by the contract. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** One route: its method, its path template (`:name` segments) and the SDK version that added it. */
export interface RouteSpec {
  readonly method: RouteMethod;
  readonly path: string;
  readonly since: string;
}

// Marked side-effect free so bundlers drop the tables a bundle does not use (the browser SDK
// uses only `browserRoutes`).
const route = /* @__NO_SIDE_EFFECTS__ */ (
  method: RouteMethod,
  path: string,
  since = '2.0.0',
): RouteSpec => ({
  method,
  path,
  since,
});

/**
 * Routes a browser uses on its app's origin.
 *
 * - `session`: `POST`, no body, with the HttpOnly session cookie. 200 with
 *   `{ user: { id, displayName?, email? }, token, expiresAt }` when signed in, or
 *   `{ user: null, token: null, expiresAt: null }` when there is no session. 401 `AUTH_REQUIRED`
 *   when the session was definitively rejected (revoked, expired). Never returns a refresh token.
 * - `functionCall`: `POST` JSON input, optional `Authorization: Bearer <session token>`; 200 with
 *   `{ result }`, or an error envelope.
 * - `functionStream`: like `functionCall`, but 200 streams the Function's bytes.
 * - `signIn`: the sign-in page (`?returnTo=<url>`).
 */
export const browserRoutes = {
  session: route('POST', '/_platform/api/session'),
  functionCall: route('POST', '/_platform/api/functions/:name'),
  functionStream: route('POST', '/_platform/api/functions/:name/stream'),
  signIn: route('GET', '/_platform/auth/sign-in'),
} as const;

/**
 * Web Push routes a browser uses on its app's origin, for `@platform/browser/push`
 * (docs/notifications.md). Apart from {@link browserRoutes} so that the core browser bundle, which
 * never subscribes, does not carry them.
 *
 * - `pushKey`: `GET`; 200 `{ publicKey, pushService }`: the app's VAPID public key (the
 *   `applicationServerKey` of `PushManager.subscribe`) and whether the broker runs its own
 *   local push service (`local`, development) or the browser's is used (`browser`).
 * - `pushSubscribe`: `POST` a `PushSubscription` as JSON (`{ endpoint, keys: { p256dh, auth } }`)
 *   or `{ local: true }`, with the session token; 200 `{ endpoint }`.
 * - `pushUnsubscribe`: `POST { endpoint }` with the session token; 200 `{ removed }`.
 */
export const pushRoutes = {
  pushKey: route('GET', '/_platform/api/push/key', '2.6.0'),
  pushSubscribe: route('POST', '/_platform/api/push/subscriptions', '2.6.0'),
  pushUnsubscribe: route('POST', '/_platform/api/push/subscriptions/remove', '2.6.0'),
} as const;

/**
 * Realtime on an app's origin, for `@platform/browser/realtime` (docs/realtime.md): one
 * WebSocket (`GET` with `Upgrade: websocket`) that carries broadcast, presence and database
 * changes as JSON frames. A browser is known by its session cookie; any other client sends an
 * `Authorization: Bearer` credential (an app access token acts as the owner).
 */
export const realtimeRoutes = {
  socket: route('GET', '/_platform/api/realtime', '2.6.0'),
} as const;

/**
 * Managed files over HTTP on the app's origin, for a client holding an app access token (it acts
 * as the owner, spec 2.2) or a session (docs/broker.md, "Managed files over HTTP"). The body of
 * `upload` and `replace` is the file's bytes, its `content-type` the file's type, `?name=` its
 * name; they answer `{ file }` (`fileInfoSchema`). `download` answers the bytes, `info` `{ file }`,
 * `remove` `{ ok: true }`. `:ref` is the file's ref.
 */
export const fileRoutes = {
  upload: route('POST', '/_platform/api/files'),
  download: route('GET', '/_platform/api/files/:ref'),
  info: route('GET', '/_platform/api/files/:ref/info'),
  replace: route('PUT', '/_platform/api/files/:ref'),
  remove: route('DELETE', '/_platform/api/files/:ref'),
} as const;

/** The path prefix of every route a Function's handler context calls on the broker. */
export const RUNTIME_PREFIX = '/_platform/runtime';

const rt = /* @__NO_SIDE_EFFECTS__ */ (path: string, since?: string): RouteSpec =>
  route('POST', RUNTIME_PREFIX + path, since);

/**
 * Routes the handler context of a Function calls on the broker (the runtime contract). Every
 * route is `POST` with a JSON body and `Authorization: Bearer <invocation token>`; see
 * docs/runtime-contract.md. `since` is the runtime SDK version that introduced the route (from
 * `featureSince`; 2.0.0 when unlisted): the SDK refuses to call it for a Function pinned to an older version, and so does the broker.
 */
export const contextRoutes = {
  dataList: rt('/data/:table/list'),
  dataGetById: rt('/data/:table/get'),
  dataCreate: rt('/data/:table/create'),
  dataUpdateById: rt('/data/:table/update'),
  dataSearch: rt('/search/:name', featureSince.search),
  filesUpload: rt('/files/upload'),
  filesDownload: rt('/files/download'),
  filesReplace: rt('/files/replace'),
  filesRemove: rt('/files/remove'),
  filesInfo: rt('/files/info'),
  aiGenerateText: rt('/ai/generate-text'),
  /** Answers 200 with `text/plain; charset=utf-8` streamed as the model writes. */
  aiStreamText: rt('/ai/stream-text'),
  aiGenerateObject: rt('/ai/generate-object'),
  aiGenerateImage: rt('/ai/generate-image'),
  emailSend: rt('/email/send'),
  notificationsSend: rt('/notifications/send'),
  realtimeBroadcast: rt('/realtime/broadcast'),
  jobsEnqueue: rt('/jobs/:queue/enqueue'),
  jobsGet: rt('/jobs/get'),
  integrationsCall: rt('/integrations/:slot/call', featureSince.integrations),
  integrationEmit: rt('/integration/emit', featureSince.integration),
  secretsGet: rt('/secrets/get'),
  log: rt('/log'),
} as const;

/** The name of a route of {@link contextRoutes}. */
export type ContextRouteName = keyof typeof contextRoutes;

/**
 * Routes the function host serves to the broker (the process that runs one bundled Function).
 *
 * - `invoke`: `POST` the invocation (JSON); 200 `{ result }`, a byte stream, or an error envelope.
 * - `health`: `GET`; 200 `{ ok: true, sdkVersion }` once the host is ready.
 */
export const hostRoutes = {
  invoke: route('POST', '/_platform/invoke'),
  health: route('GET', '/_platform/health'),
} as const;

/** The prefix of the platform's own pages and APIs on an app's origin (spec 4.1, 5.3.1). */
export const PLATFORM_PATH_PREFIX = '/_platform';

/** The prefix of the owner API and the developer's tools (spec 4.1, 9). */
export const OWNER_PATH_PREFIX = '/v1';

/** The prefix of the REST data API on an app's origin (spec 4.1: `/rest/v1/<table>`). */
export const REST_PATH_PREFIX = '/rest';

/** The REST data API: `GET …/:table`, `POST …/rpc/:fn` (spec 2.2, 4.1). */
export const REST_API_PREFIX = `${REST_PATH_PREFIX}/v1`;

/**
 * Path prefixes only the platform serves on an app's origin. This is the one list: the manifest
 * refuses a Function route below any of them (`ROUTE_PATH_RESERVED`), the broker never serves a
 * frontend file or the app's `index.html` below them, and its control plane lies below them.
 * Compare with {@link reservedPrefixOf}, never with a plain `startsWith`.
 */
export const reservedPathPrefixes = [
  PLATFORM_PATH_PREFIX,
  OWNER_PATH_PREFIX,
  REST_PATH_PREFIX,
] as const;

/** One of {@link reservedPathPrefixes}. */
export type ReservedPathPrefix = (typeof reservedPathPrefixes)[number];

/**
 * The form of a URL path that prefix checks compare: lower case, repeated and trailing `/`
 * dropped, `.` and `..` segments resolved. A reserved prefix must hold however the request spells
 * it (`//_platform/…`, `/V1/…`): a router or a file server may read those spellings as the
 * reserved path while a literal comparison does not.
 *
 * @example
 * ```ts
 * canonicalPath('//V1/./apps/'); // '/v1/apps'
 * ```
 */
export function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.toLowerCase().split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** Whether `path` is `prefix` or below it, comparing the {@link canonicalPath} of both. */
export function isUnderPrefix(path: string, prefix: string): boolean {
  const canonical = canonicalPath(path);
  const base = canonicalPath(prefix);
  return canonical === base || canonical.startsWith(base === '/' ? '/' : `${base}/`);
}

/** The reserved prefix `path` lies under ({@link reservedPathPrefixes}), if any. */
export function reservedPrefixOf(path: string): ReservedPathPrefix | undefined {
  return reservedPathPrefixes.find((prefix) => isUnderPrefix(path, prefix));
}

/** Fills the `:name` segments of a path template, encoding each value. */
export function fillPath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/:([A-Za-z]\w*)/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new TypeError(`Missing path parameter ${key} for ${path}`);
    return encodeURIComponent(value);
  });
}
