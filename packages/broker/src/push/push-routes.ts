import { PlatformError } from '@platform/errors';
import { browserContract } from '@platform/schema/contract';
import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import { bodyLimits, parseWith, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import type { Authenticate } from '../kernel/caller.ts';
import type { PushService } from './push-service.ts';

/** What the push routes need: the service and who a browser request is. */
export interface PushRouteServices {
  /** The app's id, which the deliveries' owner API path names. */
  readonly appId: string;
  readonly push: PushService;
  readonly authenticate: Authenticate;
}

async function signedIn(services: PushRouteServices, request: Request): Promise<string> {
  const caller = await services.authenticate(request);
  if (caller.kind !== 'user') {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: 'Push subscriptions belong to a signed-in user. Sign in first.',
    });
  }
  return caller.userId;
}

/**
 * The browser's push routes (`browserContract.pushKey`, `pushSubscribe`, `pushUnsubscribe`) and
 * the local push service's deliveries for the developer (`GET /v1/apps/:appId/push/deliveries`,
 * `{ deliveries }`, newest first). A malformed subscription answers `PUSH_SUBSCRIPTION_INVALID`
 * (400) and stores nothing.
 */
export function mountPushRoutes(app: Hono<BrokerEnv>, services: PushRouteServices): void {
  const { push } = services;
  app.get(browserContract.pushKey.path, (c) =>
    c.json({ publicKey: push.publicKey, pushService: push.pushService }),
  );
  app.post(browserContract.pushSubscribe.path, async (c) => {
    const userId = await signedIn(services, c.req.raw);
    const raw = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json });
    const parsed = browserContract.pushSubscribe.request.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PlatformError({
        code: 'PUSH_SUBSCRIPTION_INVALID',
        message: `The push subscription is malformed: ${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'invalid'}. Send PushSubscription.toJSON().`,
        details: { field: issue?.path.join('.') ?? '' },
      });
    }
    const body = parsed.data;
    const endpoint =
      'local' in body
        ? await push.subscribeLocal(userId)
        : await push.subscribe(userId, { endpoint: body.endpoint, keys: body.keys });
    return c.json({ endpoint });
  });
  app.post(browserContract.pushUnsubscribe.path, async (c) => {
    const userId = await signedIn(services, c.req.raw);
    const body = parseWith(
      browserContract.pushUnsubscribe.request,
      await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json }),
    );
    return c.json({ removed: await push.unsubscribe(userId, body.endpoint) });
  });
  scopeToApp(app, services.appId, [ownerApiPaths.pushDeliveries]);
  app.get(ownerApiPaths.pushDeliveries, async (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 500);
    return c.json({ deliveries: push.local ? await push.local.deliveries(limit) : [] });
  });
}
