// The dashboard's Integration calls and event deliveries, in the browser.
import {
  $,
  fill,
  get,
  localTime,
  row,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { IntegrationCallRecord as IntegrationCall } from './integration-audit.ts';
import type { EventDelivery } from './integration-events.ts';

/**
 * The app's integration calls and event deliveries; the section stays hidden where the broker
 * serves none.
 */
async function loadIntegrationCalls(api: {
  readonly calls: string;
  readonly events: string;
}): Promise<void> {
  let calls: IntegrationCall[];
  let deliveries: EventDelivery[];
  try {
    ({ calls } = await get<{ calls: IntegrationCall[] }>(api.calls, {}));
    ({ deliveries } = await get<{ deliveries: EventDelivery[] }>(api.events, {}));
  } catch {
    return;
  }
  fill(
    'integration-events',
    deliveries.map((d) =>
      row(
        [localTime(d.createdAt), d.slot, d.type, d.eventId, d.state, d.attempts, d.lastError ?? ''],
        d.state === 'delivered' ? {} : { 4: 'error' },
      ),
    ),
    'No events delivered yet.',
    7,
  );
  fill(
    'integration-calls',
    calls.map((c) =>
      row(
        [
          localTime(c.at),
          c.slot,
          c.consumerAppId,
          c.providerAppId ?? '—',
          c.operation,
          c.mode,
          `${c.durationMs} ms`,
          c.result,
        ],
        c.result === 'ok' ? {} : { 7: 'error' },
      ),
    ),
    'No integration calls yet.',
    8,
  );
  $('integrations-section').hidden = false;
}

export default {
  open: loadIntegrationCalls,
  refresh: loadIntegrationCalls,
} satisfies SectionScript<'calls' | 'events'>;
