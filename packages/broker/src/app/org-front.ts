import { randomBytes } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { Hono } from 'hono';
import { readBearer } from '../http/bearer.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { handleError, handleNotFound } from '../http/error-handler.ts';
import { dashboardPaths, OWNER_API_PREFIX } from '../http/paths.ts';
import { requestId } from '../http/request-id.ts';
import { listenBroker, type RunningServer } from '../http/serve.ts';
import { safeEqual } from '../kernel/crypto.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { orgPageHtml } from '../org/org-page.ts';

/** One app of the organisation, as the organisation's front reaches it. */
export interface OrgApp {
  readonly appId: string;
  /** `{app_url}`. */
  readonly url: string;
  /** Answers a request as the app's own port does. */
  fetch(request: Request): Promise<Response>;
}

/** How to start the organisation's front, `{base_url}`. */
export interface OrgFrontOptions {
  readonly organisation: string;
  readonly apps: () => readonly OrgApp[];
  /** The dev token the workspace's apps share: `/v1/apps` (the list) needs it. */
  readonly devToken: string;
  /** Port on 127.0.0.1; `0` picks a free one. */
  readonly port: number;
  readonly print: LogWriter;
}

/**
 * The organisation's `{base_url}` for a workspace of several apps (docs/organisations.md): the
 * organisation page at `/`, the list of apps at `GET /v1/apps` (dev token), and every app's
 * owner API at `/v1/apps/{appId}/...`, answered by that app's broker exactly as on the app's own
 * port (its own control-plane admission included). An unknown app id is `APP_NOT_FOUND`.
 */
export async function startOrgFront(options: OrgFrontOptions): Promise<RunningServer> {
  const listener = await listenBroker({ port: options.port });
  const app = new Hono<BrokerEnv>();
  app.use(requestId());
  app.onError(handleError((error, id) => options.print(`broker error ${id}: ${String(error)}`)));
  app.notFound(handleNotFound);
  const byId = (appId: string) => {
    const found = options.apps().find((candidate) => candidate.appId === appId);
    if (!found) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `The organisation has no app "${appId}"; GET ${OWNER_API_PREFIX} lists its apps.`,
        details: { appId },
      });
    }
    return found;
  };
  app.get('/', (c) => {
    const nonce = randomBytes(12).toString('base64url');
    const apps = options.apps().map((one) => ({
      appId: one.appId,
      url: one.url,
      dashboard: `${one.url}${dashboardPaths.page}`,
    }));
    return c.html(orgPageHtml({ organisation: options.organisation, apps, nonce }), 200, {
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    });
  });
  app.get(OWNER_API_PREFIX, (c) => {
    const token = readBearer(c.req.header('authorization'));
    if (typeof token !== 'string' || !safeEqual(token, options.devToken)) {
      throw new PlatformError({
        code: 'PERMISSION_DENIED',
        message: 'The list of apps needs the dev token of an app’s .platform/dev.json.',
      });
    }
    return c.json({
      apps: options.apps().map((one) => ({ appId: one.appId, url: one.url })),
    });
  });
  app.all(`${OWNER_API_PREFIX}/:appId/*`, async (c) => {
    const target = byId(c.req.param('appId'));
    const incoming = new URL(c.req.url);
    const { method } = c.req;
    const hasBody = method !== 'GET' && method !== 'HEAD';
    return target.fetch(
      new Request(new URL(`${incoming.pathname}${incoming.search}`, target.url), {
        method,
        headers: c.req.raw.headers,
        ...(hasBody ? { body: await c.req.arrayBuffer() } : {}),
      }),
    );
  });
  return listener.serve(app);
}
