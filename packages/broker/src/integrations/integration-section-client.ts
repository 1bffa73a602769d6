// The dashboard's Integration calls and event deliveries, in the browser.

import { barChart, seriesOf } from '../pages/dashboard/bar-chart-client.ts';
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
import type { PerMinute } from '../pages/dashboard/per-minute.ts';
import type { DevSlotMode } from './integration-admin.ts';
import type { IntegrationCallRecord as IntegrationCall } from './integration-audit.ts';
import type { EventDelivery } from './integration-events.ts';

/**
 * The app's integration calls and event deliveries; the section stays hidden where the broker
 * serves none.
 */
type Api = Readonly<Record<'calls' | 'perMinute' | 'events' | 'replay' | 'modes', string>>;

/** The development session's modes, as the owner API answers them. */
interface DevModes {
  readonly environment: 'development' | 'production';
  readonly slots: readonly DevSlotMode[];
}

// Switch live or fake on an `account: app` slot in development; it asks first, then reloads.
function modeCell(api: Api, modes: DevModes, s: DevSlotMode): HTMLTableCellElement {
  if (modes.environment !== 'development' || s.account !== 'app') {
    return document.createElement('td');
  }
  const to = s.mode === 'live' ? 'fake' : 'live';
  return actionCell(
    `Switch ${to}`,
    async () => {
      const question =
        to === 'live'
          ? `Switch ${s.slot} live? Its calls reach the provider for real until platform dev stops, and any other live slot goes back to fake.`
          : `Switch ${s.slot} back to its contract's fakes?`;
      if (!confirmed(question)) return;
      await send('PUT', api.modes, { slot: s.slot, mode: to });
      await loadIntegrationCalls(api);
    },
    `Switch ${to}: ${s.slot}`,
  );
}

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
    `Replay: ${d.eventId}`,
  );
}

async function loadIntegrationCalls(api: Api): Promise<void> {
  let calls: IntegrationCall[];
  let deliveries: EventDelivery[];
  let modes: DevModes;
  let minutes: PerMinute;
  try {
    ({ calls } = await get<{ calls: IntegrationCall[] }>(api.calls, {}));
    minutes = await get<PerMinute>(api.perMinute, {});
    ({ deliveries } = await get<{ deliveries: EventDelivery[] }>(api.events, {}));
    modes = await get<DevModes>(api.modes, {});
  } catch {
    return;
  }
  fill(
    'integration-slots',
    modes.slots.map((s) => {
      const tr = row([s.slot, s.integration, s.account, s.mode]);
      tr.append(modeCell(api, modes, s));
      return tr;
    }),
    'The app declares no integration slot.',
    5,
  );
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
  $('integration-chart').replaceChildren(
    barChart(seriesOf(minutes.perMinute, ['ok', 'failed']), 'integration calls'),
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
} satisfies SectionScript<keyof Api>;
