import { Hono } from 'hono';
import { mountFunctionRoutes } from '../api/function-routes.ts';
import { mountLegacyAppPaths, mountMovedBrokerApi } from '../api/legacy-app-paths.ts';
import { mountRestRoutes } from '../api/rest-routes.ts';
import { mountRuntimeRoutes } from '../api/runtime-routes.ts';
import type { StartedFeatures } from '../feature/compose.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { handleError, handleNotFound, type InternalErrorReporter } from '../http/error-handler.ts';
import { refuseNulInUrl } from '../http/nul-check.ts';
import { requestId } from '../http/request-id.ts';
import type { Authenticate } from '../kernel/caller.ts';
import { mountDashboard } from '../pages/dashboard/dashboard-routes.ts';
import type { BrokerBase } from './broker-base.ts';
import type { BrokerFeatureServices } from './features.ts';

/**
 * The broker's HTTP app (hono, Web-standard): request ids, the error envelope for every
 * failure, then the features' routes by stage: those outside sign-in, sign-in's admission check
 * (which runs before every route mounted after it), the runtime contract routes Functions call,
 * the browser's Function routes and the REST read route, and the features' own routes in
 * registry order. Serve it with `listenBroker(...).serve(app)`, or call it in-process in tests
 * with `app.request(...)`.
 *
 * @example
 * ```ts
 * const app = createBrokerApp(features, base, { authenticate, admission: true, reportError });
 * const response = await app.request('/rest/v1/todos?select=id,title');
 * ```
 */
export function createBrokerApp(
  features: StartedFeatures<BrokerFeatureServices>,
  base: BrokerBase,
  web: {
    readonly authenticate: Authenticate;
    readonly admission: boolean;
    /** Receives unexpected failures (printed by `platform dev`). */
    readonly reportError: InternalErrorReporter;
  },
): Hono<BrokerEnv> {
  const app = new Hono<BrokerEnv>();
  const { services } = features;
  const { authenticate } = web;
  const context = { ...web, appId: base.appId, central: base.central };
  app.use(requestId());
  app.onError(handleError(web.reportError));
  app.notFound(handleNotFound);
  app.use(refuseNulInUrl());
  features.mount(app, 'edge', context);
  features.mount(app, 'admission', context);
  mountRuntimeRoutes(app, {
    tokens: base.tokens,
    clock: base.clock,
    data: services.data,
    files: services.files,
    secrets: base.secrets,
    outbox: services.outbox,
    logs: base.logs,
    ...(services.search ? { search: services.search } : {}),
    jobs: services.jobs.service,
    ai: services.ai,
    push: services.push,
    realtime: services.realtime,
    integrations: services.integrations.calls,
    integrationEmit: services.integrations.emit,
  });
  mountFunctionRoutes(app, { invoker: base.invoker, authenticate });
  mountRestRoutes(app, { data: services.data, authenticate });
  // Before the jobs API, which would answer the old paths with APP_NOT_FOUND.
  mountLegacyAppPaths(app, base.appId);
  mountMovedBrokerApi(app, base.appId);
  features.mount(app, 'routes', context);
  // After admission, which keeps the dashboard to the app's owner and developer.
  mountDashboard(app, { appId: base.appId, sections: features.sections });
  return app;
}
