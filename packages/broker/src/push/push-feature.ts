import type { InspectionHold } from '../backups/inspection-hold.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import { mountPushRoutes } from './push-routes.ts';
import { pushSection } from './push-section.ts';
import { PushService } from './push-service.ts';

/**
 * Web Push (docs/notifications.md): VAPID keys, subscriptions, `ctx.notifications`, the
 * browser's push routes and, in development, the local push service, which authenticates its
 * senders by VAPID and so answers before sign-in's admission.
 */
export function pushFeature(settings: {
  /** Push services subscriptions may name besides the local one (docs/notifications.md). */
  readonly pushServiceHosts: readonly string[];
}): BrokerFeature<'push', { hold: InspectionHold }, PushService> {
  return {
    name: 'push',
    start: (base, { hold }) =>
      PushService.create(base.db, {
        stateDir: base.stateDir,
        brokerUrl: `http://127.0.0.1:${base.port}`,
        pushServiceHosts: settings.pushServiceHosts,
        held: () => hold.held(),
      }),
    dashboard: [pushSection],
    mount: {
      edge: (app, push) => push.local?.mount(app),
      routes: (app, push, _needs, { appId, authenticate }) =>
        mountPushRoutes(app, { appId, push, authenticate }),
    },
    erasure: {
      appPerson: async (tx, { accountId }) => {
        for (const table of ['push_subscriptions', 'push_local_devices', 'push_local_deliveries']) {
          await eraseRows(tx, table, 'user_id = $1', [accountId]);
        }
      },
    },
  };
}
