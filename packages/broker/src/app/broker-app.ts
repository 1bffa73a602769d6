import { Hono } from 'hono';
import { mountAiRoutes } from '../ai/ai-routes.ts';
import { aiSection } from '../ai/ai-section.ts';
import type { AiService } from '../ai/ai-service.ts';
import { mountFunctionRoutes } from '../api/function-routes.ts';
import { mountLegacyAppPaths } from '../api/legacy-app-paths.ts';
import { type Authenticate, mountRestRoutes } from '../api/rest-routes.ts';
import {
  type AppIntegrationCalls,
  type AppIntegrationEmit,
  mountRuntimeRoutes,
} from '../api/runtime-routes.ts';
import type { AuthService } from '../auth/auth-service.ts';
import { mountAuth } from '../auth/mount-auth.ts';
import type { DataService } from '../data/data-service.ts';
import type { AccountDeletions } from '../deletion/account-deletions.ts';
import { mountAccountRoutes } from '../deletion/account-routes.ts';
import { mountFileRoutes } from '../files/file-routes.ts';
import type { FileService } from '../files/file-service.ts';
import type { InvocationTokens } from '../functions/invocation-tokens.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { handleError, handleNotFound, type InternalErrorReporter } from '../http/error-handler.ts';
import { refuseNulInUrl } from '../http/nul-check.ts';
import { requestId } from '../http/request-id.ts';
import type { InboundMail } from '../inbound-mail/inbound-mail.ts';
import { mountInboundMailRoutes } from '../inbound-mail/inbound-routes.ts';
import { integrationSection } from '../integrations/integration-section.ts';
import { cronSection, jobsSection } from '../jobs/dashboard/jobs-section.ts';
import { mountJobSummaryRoutes } from '../jobs/dashboard/summary-routes.ts';
import type { JobService } from '../jobs/job-service.ts';
import { mountJobsRoutes } from '../jobs/jobs-routes.ts';
import { anonymousCaller } from '../kernel/caller.ts';
import type { LogSink } from '../logs/log-sink.ts';
import type { Onboarding } from '../onboarding/onboarding.ts';
import { mountOnboardingRoutes } from '../onboarding/onboarding-routes.ts';
import { type AuthorityRouteServices, mountAuthorityRoutes } from '../org/authority-routes.ts';
import { orgSection } from '../org/org-section.ts';
import { mailSection } from '../outbox/mail-section.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { mountOutboxRoutes } from '../outbox/outbox-routes.ts';
import { mountDashboard } from '../pages/dashboard/dashboard-routes.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';
import { mountPushRoutes } from '../push/push-routes.ts';
import { pushSection } from '../push/push-section.ts';
import type { PushService } from '../push/push-service.ts';
import type { SecretStore } from '../secrets/secret-store.ts';

/** Everything the HTTP app serves. */
export interface BrokerServices {
  /** The app's id: the dashboard's title and the owner API paths its sections read. */
  readonly appId: string;
  readonly data: DataService;
  readonly files: FileService;
  readonly secrets: SecretStore;
  readonly outbox: Outbox;
  /** Received mail: the outbox's inbound side and the `.eml` delivery route. @default none */
  readonly inbound?: InboundMail;
  readonly logs: LogSink;
  readonly tokens: InvocationTokens;
  readonly invoker: FunctionInvoker;
  /** `ctx.ai` and the AI calls listing; without it the AI routes answer FEATURE_NOT_AVAILABLE. */
  readonly ai?: AiService;
  /** Jobs behind `ctx.jobs` and the jobs API; without it they answer FEATURE_NOT_AVAILABLE. */
  readonly jobs?: JobService;
  /**
   * Web Push behind `ctx.notifications`, the browser's push routes and, in development, the
   * local push service; without it `notifications.send` answers FEATURE_NOT_AVAILABLE.
   */
  readonly push?: PushService;
  /**
   * The identity of a browser or app-token request. Sign-in plugs sessions and app
   * access tokens in here.
   * @default every request is anonymous
   */
  readonly authenticate?: Authenticate;
  /** Receives unexpected failures (printed by `platform dev`). */
  readonly reportError?: InternalErrorReporter;
  /**
   * Sign-in pages, the session route, the owner API and, with `admission`, the
   * private-app edge check in front of every other route (docs/auth.md).
   */
  readonly auth?: { readonly service: AuthService; readonly admission: boolean };
  /** `ctx.integrations` of this app; without it the call route answers FEATURE_NOT_AVAILABLE. */
  readonly integrations?: AppIntegrationCalls;
  /** `ctx.integration.emit` of this app; without it the route answers FEATURE_NOT_AVAILABLE. */
  readonly integrationEmit?: AppIntegrationEmit;
  /** The app's authority facts on the owner API, when an organisation's central store is open. */
  readonly authority?: AuthorityRouteServices;
  /** Account deletion from the account page (with `auth`). */
  readonly deletions?: AccountDeletions;
  /** Agent-created accounts for this app as the project (with `auth`). */
  readonly onboarding?: Onboarding;
}

/**
 * The dashboard's sections, in page order: those of the features this broker runs. The
 * organisation and integration sections hide themselves where the broker has neither.
 */
function dashboardSections(services: BrokerServices): readonly DashboardSection[] {
  return [
    ...(services.jobs ? [jobsSection, cronSection] : []),
    ...(services.ai ? [aiSection] : []),
    integrationSection,
    mailSection,
    orgSection,
    ...(services.push ? [pushSection] : []),
  ];
}

/**
 * The broker's HTTP app (hono, Web-standard): request ids, the error envelope for every
 * failure, the runtime contract routes Functions call, the browser's Function routes, the REST
 * read route and the broker API. Serve it with `listenBroker(...).serve(app)`, or call it in-process in tests
 * with `app.request(...)`.
 *
 * @example
 * ```ts
 * const app = createBrokerApp(services);
 * const response = await app.request('/rest/v1/todos?select=id,title');
 * ```
 */
export function createBrokerApp(services: BrokerServices): Hono<BrokerEnv> {
  const app = new Hono<BrokerEnv>();
  const authenticate = services.authenticate ?? (async () => anonymousCaller);
  app.use(requestId());
  app.onError(handleError(services.reportError ?? ((error) => console.error(error))));
  app.notFound(handleNotFound);
  app.use(refuseNulInUrl());
  // The local push service authenticates senders by VAPID, not sign-in: it comes before admission.
  services.push?.local?.mount(app);
  // Admission runs before every route mounted after it (runtime, Functions, frontend).
  if (services.auth) mountAuth(app, services.auth.service, { admission: services.auth.admission });
  if (services.auth && services.deletions) {
    mountAccountRoutes(app, services.auth.service, services.deletions);
  }
  if (services.auth && services.onboarding) {
    mountOnboardingRoutes(app, services.auth.service, services.onboarding);
  }
  mountRuntimeRoutes(app, services);
  mountFunctionRoutes(app, { invoker: services.invoker, authenticate });
  mountRestRoutes(app, { data: services.data, authenticate });
  mountFileRoutes(app, { files: services.files, authenticate });
  mountOutboxRoutes(app, { outbox: services.outbox, received: services.inbound });
  if (services.inbound) mountInboundMailRoutes(app, { inbound: services.inbound });
  if (services.ai) mountAiRoutes(app, { ai: services.ai });
  if (services.jobs) mountLegacyAppPaths(app, services.jobs.scope.appId);
  if (services.push) mountPushRoutes(app, { push: services.push, authenticate });
  if (services.jobs) mountJobSummaryRoutes(app, { jobs: services.jobs }); // before /jobs/:jobId
  if (services.jobs) mountJobsRoutes(app, { jobs: services.jobs });
  if (services.authority) mountAuthorityRoutes(app, services.authority);
  // After admission, which keeps the dashboard to the app's owner and developer.
  mountDashboard(app, { appId: services.appId, sections: dashboardSections(services) });
  return app;
}
