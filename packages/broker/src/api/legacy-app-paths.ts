import { PlatformError } from '@platform/errors';
import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { MOVED_BROKER_API_PREFIX, movedOwnerApiPath, OWNER_API_PREFIX } from '../http/paths.ts';

/** The app id owner API paths carried before every app had a real one. */
const LEGACY_APP_ID = 'local';

/**
 * Answers `/v1/apps/local/...` with `308 Permanent Redirect` to the same path and query under
 * the app's real id, for the one release in which tools written against the old paths move on.
 * A 308 keeps the method, the body and (same origin) the `Authorization` header. Mounted after
 * the control plane's admission, so it tells nothing to a caller the owner API would refuse.
 */
export function mountLegacyAppPaths(app: Hono<BrokerEnv>, appId: string): void {
  if (appId === LEGACY_APP_ID) return;
  const old = `${OWNER_API_PREFIX}/${LEGACY_APP_ID}`;
  app.all(`${old}/*`, (c) => {
    const url = new URL(c.req.url);
    const moved = `${OWNER_API_PREFIX}/${encodeURIComponent(appId)}${url.pathname.slice(old.length)}${url.search}`;
    return c.redirect(moved, 308);
  });
}

/**
 * Answers every path under the old broker API prefix (`/_platform/broker/...`, before the owner
 * API moved under `/v1/`) with `ROUTE_MOVED` (410), its new path in the message and in
 * `details.location`, for one minor version. Not a redirect: a tool written against the old
 * paths should be changed, not silently kept working until the prefix goes. Mounted after the
 * control plane's admission, which still covers the old prefix, so it tells nothing to a caller
 * the owner API would refuse.
 */
export function mountMovedBrokerApi(app: Hono<BrokerEnv>, appId: string): void {
  const moved = (path: string) => {
    const location = movedOwnerApiPath(path, appId) ?? OWNER_API_PREFIX;
    throw new PlatformError({
      code: 'ROUTE_MOVED',
      message: `The owner API moved under /v1/: ${path} is now ${location}.`,
      details: { location },
    });
  };
  app.all(MOVED_BROKER_API_PREFIX, (c) => moved(c.req.path));
  app.all(`${MOVED_BROKER_API_PREFIX}/*`, (c) => moved(c.req.path));
}
