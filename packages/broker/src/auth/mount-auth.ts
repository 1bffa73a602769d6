import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { admission } from './admission.ts';
import { mountAppTokenRoutes } from './app-token-routes.ts';
import type { AuthService } from './auth-service.ts';
import { mountControlRoutes } from './control-routes.ts';
import { mountEmailLinkRoutes } from './email-link-routes.ts';
import { mountHandoffRoutes } from './handoff-routes.ts';
import { mountPasswordRoutes } from './password-routes.ts';
import { mountSessionRoutes } from './session-routes.ts';

/**
 * Mounts sign-in on the broker's app: the admission middleware first, unless a test identity
 * replaces sign-in's (so it runs before every route registered after it, the frontend
 * included), then the sign-in pages under `/_platform/auth`, the session route, and the owner
 * API and pages for grants and app access tokens. Every route calls the operations of `auth`.
 *
 * @example
 * ```ts
 * const app = new Hono<BrokerEnv>();
 * mountAuth(app, auth); // before the app's other routes
 * ```
 */
export function mountAuth(
  app: Hono<BrokerEnv>,
  auth: AuthService,
  options: { admission: boolean } = { admission: true },
): void {
  if (options.admission) app.use('*', admission(auth));
  mountEmailLinkRoutes(app, auth);
  mountPasswordRoutes(app, auth);
  mountSessionRoutes(app, auth);
  mountHandoffRoutes(app, auth);
  mountControlRoutes(app, auth);
  mountAppTokenRoutes(app, auth);
}
