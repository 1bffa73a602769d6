import { PlatformError } from '@platform/errors';
import { type Context, Hono } from 'hono';
import { mountAccountRoutes } from '../auth/account-routes.ts';
import { AGENT_CREDENTIAL_PREFIX, type AgentCredentials } from '../auth/agent-credentials.ts';
import type { Database } from '../db/database.ts';
import { readBearer } from '../http/bearer.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { handleError, handleNotFound } from '../http/error-handler.ts';
import {
  CUSTOM_INTEGRATIONS_PREFIX,
  dashboardPaths,
  MCP_PATH,
  OWNER_API_PREFIX,
  orgApiPaths,
} from '../http/paths.ts';
import { requestId } from '../http/request-id.ts';
import { listenBroker, type RunningServer } from '../http/serve.ts';
import type { Clock } from '../kernel/clock.ts';
import { safeEqual } from '../kernel/crypto.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { agentHttp, twinRequest } from '../mcp/agent-http.ts';
import type { Memberships } from '../org/memberships.ts';
import { orgPage } from '../org/org-page.ts';
import { pageResponse } from '../pages/page-shell.ts';
import { dashboardLinkKey } from '../project/dev-state.ts';

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
  /**
   * The dev token the workspace's apps share: `/v1/apps` (the list) needs it. Without one (the
   * service of `platform serve`) the routes it opens are closed to everyone.
   */
  readonly devToken?: string | undefined;
  /** The organisation's members and roles. */
  readonly members: Memberships;
  /** The agent credentials beside the organisation's accounts (the agent tools accept them). */
  readonly agentCredentials: AgentCredentials;
  /** The organisation's central store: `platform login`'s account credentials live there. */
  readonly central: Database;
  readonly clock: Clock;
  readonly print: LogWriter;
  /**
   * The host name of `{base_url}` when it is a service's (`platform serve`'s base domain): the
   * agent tools answer there besides loopback. @default loopback only
   */
  readonly serviceHost?: string;
  /**
   * Routes mounted before the organisation's own, which they take precedence over (the setup
   * page and the deployments of `platform serve`).
   */
  readonly routes?: (app: Hono<BrokerEnv>) => void;
}

/**
 * The organisation's `{base_url}` for a workspace of several apps (docs/organisations.md): the
 * organisation page at `/`, the list of apps at `GET /v1/apps` and of members with their roles
 * at `GET /v1/organisation/members` (dev token), and every app's
 * owner API at `/v1/apps/{appId}/...`, answered by that app's broker exactly as on the app's own
 * port (its own control-plane admission included). An unknown app id is `APP_NOT_FOUND`.
 * `platform login --to {base_url}` signs the CLI in here (docs/auth.md): an account credential
 * reads who it is, the members and the apps; the agent tools stay the dev token's (and an agent
 * credential's), and each app's owner API admits what that app's control plane admits (under
 * `platform serve`, the account credential of its owner and of the organisation's administrators).
 */
export async function startOrgFront(
  options: OrgFrontOptions & {
    /** Port on 127.0.0.1; `0` picks a free one. */
    readonly port: number;
  },
): Promise<RunningServer> {
  const listener = await listenBroker({ port: options.port });
  return listener.serve(orgFrontApp(options));
}

/**
 * The routes of the organisation's `{base_url}` ({@link startOrgFront}) as an app, for a server
 * that routes to it by Host (`platform serve`).
 */
export function orgFrontApp(options: OrgFrontOptions): Hono<BrokerEnv> {
  const { devToken } = options;
  const app = new Hono<BrokerEnv>();
  app.use(requestId());
  app.onError(handleError((error, id) => options.print(`broker error ${id}: ${String(error)}`)));
  app.notFound(handleNotFound);
  options.routes?.(app);
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
  const isDeveloper = (c: Context<BrokerEnv>) => {
    const token = readBearer(c.req.header('authorization'));
    return devToken !== undefined && typeof token === 'string' && safeEqual(token, devToken);
  };
  // The organisation page's link from platform dev: its key shows the members, nothing more.
  const hasLinkKey = (c: Context<BrokerEnv>) => {
    const key = c.req.query('key');
    return (
      devToken !== undefined &&
      typeof key === 'string' &&
      safeEqual(key, dashboardLinkKey(devToken))
    );
  };
  const requireDeveloper = (c: Context<BrokerEnv>, what: string) => {
    if (!isDeveloper(c)) {
      throw new PlatformError({
        code: 'PERMISSION_DENIED',
        message:
          devToken === undefined
            ? `${what} needs the dev token of platform dev, which this service does not have.`
            : `${what} needs the dev token of an app’s .platform/dev.json.`,
      });
    }
  };
  const account = mountAccountRoutes(app, {
    central: options.central,
    clock: options.clock,
    organisation: options.organisation,
    member: async (accountId) =>
      (await options.members.list()).find((one) => one.accountId === accountId),
    // The organisation's sign-in is served on its apps' pages; any app's will do.
    approvalOrigin: () => options.apps()[0]?.url,
  });
  // What every member may read: the dev token, or a member's own account credential.
  const requireMember = async (c: Context<BrokerEnv>, what: string) => {
    if (isDeveloper(c) || (await account(c)) !== undefined) return;
    throw new PlatformError({
      code: 'PERMISSION_DENIED',
      message: `${what} needs the dev token of an app’s .platform/dev.json or a member's account credential (platform login).`,
    });
  };
  app.get('/', async (c) => {
    const apps = options.apps().map((one) => ({
      appId: one.appId,
      url: one.url,
      dashboard: `${one.url}${dashboardPaths.page}`,
    }));
    // The link platform dev prints (`/?key=<link key>`) also shows the members.
    const members = isDeveloper(c) || hasLinkKey(c) ? await options.members.list() : undefined;
    return pageResponse(
      orgPage({ organisation: options.organisation, apps, ...(members ? { members } : {}) }),
    );
  });
  app.get(orgApiPaths.members, async (c) => {
    await requireMember(c, 'The list of members');
    return c.json({ members: await options.members.list() });
  });
  app.get(OWNER_API_PREFIX, async (c) => {
    await requireMember(c, 'The list of apps');
    return c.json({
      apps: options.apps().map((one) => ({ appId: one.appId, url: one.url })),
    });
  });
  const forward = async (c: Context<BrokerEnv>, target: OrgApp) => {
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
  };
  app.all(`${OWNER_API_PREFIX}/:appId/*`, (c) => forward(c, byId(c.req.param('appId'))));
  // A tool's twin goes through these routes as the same request sent directly would: to the
  // app's broker, or to a route of the front's own (onboarding on platform serve, where the
  // project's app does not exist yet). Its origin is never read: forwarding keeps only the path,
  // and the front's own pages use their configured address.
  const tools = agentHttp(
    (credential) => async (twin) =>
      app.fetch(twinRequest(twin, 'http://agent-tool.invalid', credential)),
    options.serviceHost,
  );
  app.all(MCP_PATH, async (c) => {
    // An agent credential acts on its own app only: each tool's twin is checked by that app.
    const presented = readBearer(c.req.header('authorization'));
    const agent =
      typeof presented === 'string' && presented.startsWith(AGENT_CREDENTIAL_PREFIX)
        ? await options.agentCredentials.verify(presented)
        : undefined;
    if (agent === undefined) requireDeveloper(c, 'The agent tools');
    return tools(c.req.raw);
  });
  // Every app serves the connect page and the webhooks from the organisation's central store
  // and its apps: any one answers.
  app.all(`${CUSTOM_INTEGRATIONS_PREFIX}/*`, (c) => {
    const [any] = options.apps();
    if (!any) throw new PlatformError({ code: 'APP_NOT_FOUND', message: 'No app is running.' });
    return forward(c, any);
  });
  return app;
}
