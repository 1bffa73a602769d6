// The dashboard's Integration calls and event deliveries, in the browser.
import {
  $,
  actionCell,
  confirmed,
  fill,
  get,
  localTime,
  row,
  type SectionScript,
  send,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { IntegrationCallRecord as IntegrationCall } from './integration-audit.ts';
import type { EventDelivery } from './integration-events.ts';

/**
 * The app's integration calls and event deliveries; the section stays hidden where the broker
 * serves none.
 */
type Api = Readonly<Record<'calls' | 'events' | 'replay', string>>;

// Replay on a failed delivery that kept its payload; it asks first, then reloads the section.
function replayCell(api: Api, d: EventDelivery): HTMLTableCellElement {
  if (!d.replayable) return document.createElement('td');
  return actionCell(
    'Replay',
    async () => {
      if (!confirmed(`Deliver ${d.type} ${d.eventId} to ${d.slot} again?`)) return;
      await send('POST', api.replay.replace(':deliveryId', encodeURIComponent(d.id)));
      await loadIntegrationCalls(api);
    },
    `Replay delivery ${d.eventId}`,
  );
}

async function loadIntegrationCalls(api: Api): Promise<void> {
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
    deliveries.map((d) => {
      const tr = row(
        [localTime(d.createdAt), d.slot, d.type, d.eventId, d.state, d.attempts, d.lastError ?? ''],
        d.state === 'delivered' ? {} : { 4: 'error' },
      );
      tr.append(replayCell(api, d));
      return tr;
    }),
    'No events delivered yet.',
    8,
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
} satisfies SectionScript<'calls' | 'events' | 'replay'>;
