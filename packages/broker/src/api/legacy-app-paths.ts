import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { OWNER_API_PREFIX } from '../http/paths.ts';

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
