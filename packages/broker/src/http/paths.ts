/**
 * Every path the broker serves beside the runtime contract (whose routes live in
 * `@platform/schema/contract` and `@platform/schema/routes`): sign-in, the owner API (the
 * developer's tools, the jobs and cron API, integrations, the organisation) and the dashboard. Route files, the CLI and the
 * admission checks read them here, so a path is written once. The prefixes they lie under, and
 * how a path is compared with a prefix, live in `@platform/schema/routes` (the manifest's route
 * rule reads the same list).
 */

import {
  isUnderPrefix,
  OWNER_PATH_PREFIX,
  PLATFORM_PATH_PREFIX,
  reservedPrefixOf,
} from '@platform/schema/routes';

/** Where the broker serves its sign-in pages: `{auth_url}` = `{app_url}/_platform/auth`. */
export const AUTH_BASE = `${PLATFORM_PATH_PREFIX}/auth`;

/** The signed-in person's account page, under `{auth_url}`. */
export const ACCOUNT_PAGE = `${AUTH_BASE}/account`;

/** The owner API of apps (spec 4.1, 9). */
export const OWNER_API_PREFIX = `${OWNER_PATH_PREFIX}/apps`;

/** `GET`: the integration contracts the organisation's apps publish (spec 4.1). */
export const customIntegrationsPath = `${OWNER_API_PREFIX}/:appId/custom-integrations`;

/**
 * Onboarding an app's person (spec 5.2): `POST` `{ email }` starts, `POST …/:requestId`
 * `{ claimSecret }` is the agent's return.
 */
export const onboardingApiPath = `${OWNER_API_PREFIX}/:appId/onboarding`;

/** The organisation's owner API: its members and their roles. */
export const ORGANISATION_API_PREFIX = `${OWNER_PATH_PREFIX}/organisation`;

/** This machine's platform administrators (spec 5.3.2): `GET`, `PUT|DELETE …/:email`. */
export const PLATFORM_ADMINISTRATORS_PATH = `${OWNER_PATH_PREFIX}/platform-administrators`;

/**
 * The developer's tools on the owner API (spec 9: owner API paths begin with `/v1/`; spec 5.3.3
 * leaves the rest to us). All but the platform administrators, who belong to the machine rather
 * than to one app, lie under `/v1/apps/:appId`, answered by that app's broker (and through
 * `{base_url}`, which forwards `/v1/apps/{appId}/...` to it).
 */
export const ownerApiPaths = {
  /** Private-app grants: `GET|POST`, `DELETE …/:email`. */
  access: `${OWNER_API_PREFIX}/:appId/access`,
  /** App access tokens: `GET|POST`, `DELETE …/:id`; requests: `POST …/requests`, `…/requests/:id/claim`. */
  tokens: `${OWNER_API_PREFIX}/:appId/tokens`,
  /** The app's agent credentials: `GET`, `DELETE …/:id`. */
  agents: `${OWNER_API_PREFIX}/:appId/agents`,
  /** Captured development email, sent and received. */
  outbox: `${OWNER_API_PREFIX}/:appId/outbox`,
  /** `GET ?limit=&offset=`: the app's files, newest first: name, type, size, owner, never contents. */
  files: `${OWNER_API_PREFIX}/:appId/files`,
  /** The recent AI calls (no prompts, outputs or keys). */
  aiCalls: `${OWNER_API_PREFIX}/:appId/ai/calls`,
  /** `GET`: the AI calls of each minute of the last hour, ok and failed. */
  aiCallsPerMinute: `${OWNER_API_PREFIX}/:appId/ai/calls/per-minute`,
  /** `platform mail receive`: deliver a message (`.eml` bytes) to the inbound email Function. */
  mailInbound: `${OWNER_API_PREFIX}/:appId/mail/inbound`,
  /** `POST`: deliver a captured (sent) email to the inbound email Function, as if it arrived. */
  outboxReceive: `${OWNER_API_PREFIX}/:appId/outbox/:emailId/receive`,
  /** Notifications the local push service received (development). */
  pushDeliveries: `${OWNER_API_PREFIX}/:appId/push/deliveries`,
  /** `platform invoke`: run a Function directly. */
  invoke: `${OWNER_API_PREFIX}/:appId/invoke/:name`,
  /** `platform verify`: which declared Functions ran after their code last changed. */
  verification: `${OWNER_API_PREFIX}/:appId/verification`,
  /**
   * The app's backups: `GET` lists, `POST` takes one; `POST …/:backupId/restore` restores one,
   * `DELETE …/:backupId` removes one; `PUT …/settings` `{ intervalSeconds }` sets the schedule.
   */
  backups: `${OWNER_API_PREFIX}/:appId/backups`,
  /** This machine's platform administrators. */
  platformAdministrators: PLATFORM_ADMINISTRATORS_PATH,
} as const;

/**
 * Where {@link ownerApiPaths} were served before they moved under `/v1/`. For one minor version
 * every path below it answers `ROUTE_MOVED` (410) naming its new path
 * ({@link movedOwnerApiPath}); then the prefix goes.
 */
export const MOVED_BROKER_API_PREFIX = `${PLATFORM_PATH_PREFIX}/broker`;

/**
 * The path an old broker API path moved to: `/_platform/broker/<rest>` is
 * `/v1/apps/<appId>/<rest>`, and `/_platform/broker/platform-administrators[/...]` is
 * `/v1/platform-administrators[/...]`. `undefined` for a path not below the old prefix.
 */
export function movedOwnerApiPath(path: string, appId: string): string | undefined {
  if (!isUnder(path, MOVED_BROKER_API_PREFIX)) return undefined;
  const rest = path.slice(MOVED_BROKER_API_PREFIX.length);
  if (isUnder(rest, '/platform-administrators')) return `${OWNER_PATH_PREFIX}${rest}`;
  return `${OWNER_API_PREFIX}/${encodeURIComponent(appId)}${rest}`;
}

/**
 * The CLI signed in to a service (`platform login --to <base_url>`, docs/auth.md): on
 * `{base_url}`, with the account credential as `Authorization: Bearer plat_account_...` unless
 * said otherwise; the approval page on an app's `{auth_url}`, where the browser signs in.
 */
export const accountApiPaths = {
  /** `GET`: `{ accountId, email, state, role, organisation, credential }` of the credential's account. */
  account: `${OWNER_PATH_PREFIX}/account`,
  /** `POST { name? }` (no credential): ask for an account credential, device-grant style. */
  loginRequests: `${OWNER_PATH_PREFIX}/account/login-requests`,
  /** `POST { secret }` (no credential): `pending` (202) until approved, then the credential once. */
  loginClaim: `${OWNER_PATH_PREFIX}/account/login-requests/:id/claim`,
  /** `GET`: the account's live account credentials (never their values). */
  credentials: `${OWNER_PATH_PREFIX}/account/credentials`,
  /** `DELETE`: revokes one of the account's own; `current` is the one presented. */
  credential: `${OWNER_PATH_PREFIX}/account/credentials/:id`,
  /** `GET|POST`: the approval page, where the signed-in person types the terminal's code. */
  approvePage: `${AUTH_BASE}/account-logins/:id`,
} as const;

/**
 * The agent tools over MCP (streamable HTTP; docs/agents.md): the focused builder surface, or
 * the full one with `?surface=full`. Needs the dev token, as the owner API does.
 */
export const MCP_PATH = `${OWNER_PATH_PREFIX}/mcp`;

/** The organisation's owner API on `{base_url}` (docs/organisations.md). */
export const orgApiPaths = {
  /** `GET`: `{ apps: [{ appId, url }], members: [{ accountId, email, role }] }`. */
  organisation: ORGANISATION_API_PREFIX,
  /**
   * `GET`: `{ members: [{ accountId, email, role }] }`; `POST { email, actingAs }`: an
   * administrator invites an address (`{ email, joined }`).
   */
  members: `${ORGANISATION_API_PREFIX}/members`,
  /** `PUT { role, actingAs }`: an administrator (`actingAs`) changes a member's role. */
  memberRole: `${ORGANISATION_API_PREFIX}/members/:email/role`,
  /** `DELETE ?actingAs=<email>`: a member leaves, or an administrator removes them. */
  member: `${ORGANISATION_API_PREFIX}/members/:email`,
  /** `GET`: an app's owner, Use and Administer audiences and editors, by email. */
  authority: `${OWNER_API_PREFIX}/:appId/authority`,
  /** `PUT`: one of them (`use`, `administer`, `editors`, `owner`). */
  authorityFact: `${OWNER_API_PREFIX}/:appId/authority/:fact`,
} as const;

/**
 * The local push service of `platform dev` (docs/notifications.md): the endpoint of each local
 * subscription, `POST` by the broker's own sender with a VAPID-signed, aes128gcm-encrypted body.
 * It answers outside sign-in (a push service authenticates senders by VAPID, not by session).
 */
export const LOCAL_PUSH_PREFIX = `${PLATFORM_PATH_PREFIX}/push-service`;

/** The jobs API of spec 4.1, the jobs summary and the cron API. */
export const jobsApiPaths = {
  list: `${OWNER_API_PREFIX}/:appId/jobs`,
  get: `${OWNER_API_PREFIX}/:appId/jobs/:jobId`,
  /** `POST`: a dead-lettered job runs again, from its first attempt. */
  retry: `${OWNER_API_PREFIX}/:appId/jobs/:jobId/retry`,
  /** `POST`: a pending job (queued or waiting for a retry) is dead-lettered with `JOB_CANCELLED`. */
  cancel: `${OWNER_API_PREFIX}/:appId/jobs/:jobId/cancel`,
  summary: `${OWNER_API_PREFIX}/:appId/jobs/summary`,
  /** `GET`: the jobs created in each minute of the last hour, by the state each is in now. */
  perMinute: `${OWNER_API_PREFIX}/:appId/jobs/per-minute`,
  enqueue: `${OWNER_API_PREFIX}/:appId/queues/:queue/jobs`,
  cron: `${OWNER_API_PREFIX}/:appId/cron`,
  cronRun: `${OWNER_API_PREFIX}/:appId/cron/:name/run`,
  cronRunGet: `${OWNER_API_PREFIX}/:appId/cron/runs/:runId`,
  /** The Agent Feed (spec 4.5): job signals, failure events and the failure alert. */
  feed: `${OWNER_API_PREFIX}/:appId/feed`,
} as const;

/**
 * The app console (the dashboard) page and its script; its dev-token link is `?key=<link key>`.
 * `session` answers `{ csrf }`, the form token the console's state changes carry.
 */
export const dashboardPaths = {
  page: `${PLATFORM_PATH_PREFIX}/dashboard`,
  script: `${PLATFORM_PATH_PREFIX}/dashboard/dashboard.js`,
  session: `${PLATFORM_PATH_PREFIX}/dashboard/session`,
} as const;

/** The header that carries the console's form token on a state change of the owner API. */
export const CONSOLE_CSRF_HEADER = 'x-platform-csrf';

/** The console's logs and Functions on the owner API. */
export const consoleApiPaths = {
  /** `GET ?function=&level=&q=&requestId=&from=&to=&limit=`: kept log and request lines. */
  logs: `${OWNER_API_PREFIX}/:appId/logs`,
  /** `GET`: the same lines as server-sent events while the connection is open. */
  logStream: `${OWNER_API_PREFIX}/:appId/logs/stream`,
  /** `GET`: the Functions with their access level and recent calls (never inputs or outputs). */
  functions: `${OWNER_API_PREFIX}/:appId/functions`,
  /** `GET`: the last hour's calls per minute, latency percentiles and request counts. */
  overview: `${OWNER_API_PREFIX}/:appId/overview`,
  /** `GET`: the app's tables with row counts, row-level security and policies. */
  tables: `${OWNER_API_PREFIX}/:appId/data/tables`,
  /** `GET ?limit=&offset=` as the owner, or `?asUser=<uuid>&limit=` under that user's RLS. */
  tableRows: `${OWNER_API_PREFIX}/:appId/data/tables/:table/rows`,
} as const;

/**
 * What `{base_url}` serves for integrations to people and providers (docs/integrations.md): the
 * connect page and the per-connection webhook URLs. Each is admitted by the secret in its own
 * address, not by a session or the dev token.
 */
export const CUSTOM_INTEGRATIONS_PREFIX = `${OWNER_PATH_PREFIX}/custom-integrations`;

/** The page where a person enters a connection's credentials, reached by a one-time link. */
export const CONNECT_PAGE_PREFIX = `${CUSTOM_INTEGRATIONS_PREFIX}/connect`;

/** A connection's webhook URL: `…/webhooks/<connection id>/<secret>`. */
export const WEBHOOK_PREFIX = `${CUSTOM_INTEGRATIONS_PREFIX}/webhooks`;

/**
 * The redirect URI of every OAuth sign-in (spec 2.10, 4.1): the URI to register with the
 * provider is `{base_url}` followed by this path.
 */
export const OAUTH_CALLBACK_PATH = `${CUSTOM_INTEGRATIONS_PREFIX}/oauth/callback`;

/** The owner API of connections, bindings, development modes and the call audit. */
export const integrationApiPaths = {
  connections: `${OWNER_API_PREFIX}/:appId/connections`,
  connectLinks: `${OWNER_API_PREFIX}/:appId/connections/links`,
  connection: `${OWNER_API_PREFIX}/:appId/connections/:connectionId`,
  webhookUrl: `${OWNER_API_PREFIX}/:appId/connections/:connectionId/webhook`,
  bindings: `${OWNER_API_PREFIX}/:appId/bindings`,
  binding: `${OWNER_API_PREFIX}/:appId/bindings/:slot`,
  devModes: `${OWNER_API_PREFIX}/:appId/dev/integrations`,
  calls: `${OWNER_API_PREFIX}/:appId/integration-calls`,
  /** `GET`: the calls the app made or served in each minute of the last hour, ok and failed. */
  callsPerMinute: `${OWNER_API_PREFIX}/:appId/integration-calls/per-minute`,
  events: `${OWNER_API_PREFIX}/:appId/integration-events`,
  /** `POST`: a failed event delivery is delivered again, with the payload it kept. */
  eventReplay: `${OWNER_API_PREFIX}/:appId/integration-events/:deliveryId/replay`,
  devEvents: `${OWNER_API_PREFIX}/:appId/dev/integration-events`,
} as const;

/**
 * The control plane: the owner API (apps, the organisation, platform administrators, the agent
 * tools), the old broker API prefix while it answers `ROUTE_MOVED`, and the dashboard.
 */
export const controlPlanePrefixes = [
  MOVED_BROKER_API_PREFIX,
  OWNER_API_PREFIX,
  PLATFORM_ADMINISTRATORS_PATH,
  MCP_PATH,
  ORGANISATION_API_PREFIX,
  dashboardPaths.page,
] as const;

/** Whether `path` is `prefix` or below it, exactly as written (a route's own prefix). */
export const isUnder = (path: string, prefix: string): boolean =>
  path === prefix || path.startsWith(`${prefix}/`);

/**
 * Whether `path` belongs to the control plane, however it is spelled (`//v1/apps`, `/V1/Apps`):
 * such a spelling reaches no control-plane route, but it must not pass as app traffic either.
 */
export const isControlPlane = (path: string): boolean =>
  controlPlanePrefixes.some((prefix) => isUnderPrefix(path, prefix));

/**
 * Whether `path` lies under a prefix only the platform serves (`reservedPathPrefixes` of
 * `@platform/schema/routes`: `/_platform`, `/v1`, `/rest`), however it is spelled. A path below
 * them that no platform route answers is `ROUTE_NOT_FOUND`, never a file or the `index.html` of
 * the app's frontend.
 */
export const isReserved = (path: string): boolean => reservedPrefixOf(path) !== undefined;

/** The paths `platform serve` answers on every host, before any app or routing. */
export const servicePaths = {
  /** The process is alive. */
  healthz: `${PLATFORM_PATH_PREFIX}/healthz`,
  /** The process can serve: its central store answers. */
  readyz: `${PLATFORM_PATH_PREFIX}/readyz`,
  /** The first platform administrator's setup page (`?key=` the one-time secret). */
  setup: `${PLATFORM_PATH_PREFIX}/setup`,
} as const;

/** An app's deployments under the owner API. */
export const deploymentsPath = `${OWNER_API_PREFIX}/:appId/deployments`;

/**
 * The custom domains of a deployed app under `platform serve` (docs/production.md): `GET`,
 * `POST { domain }`, `POST …/:domain/verify`, `DELETE …/:domain`.
 */
export const domainsPath = `${OWNER_API_PREFIX}/:appId/domains`;

/**
 * The secrets of a deployed app under `platform serve` (docs/production.md, "Secrets"): `GET`
 * lists names, `PUT …/:name { value }` sets one, `DELETE …/:name` removes one. Write-only.
 */
export const secretsPath = `${OWNER_API_PREFIX}/:appId/secrets`;
