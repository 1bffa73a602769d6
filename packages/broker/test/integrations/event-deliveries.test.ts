// Emitted integration events outside development (spec 6.1): recorded once per subscribed
// binding, delivered at least once with the payload of spec 2.11, retried with backoff for about
// three hours, surviving a broker restart; payloads dropped once delivered and kept for a replay
// while failed, records kept 14 days.
import { type JsonValue, PlatformError } from '@platform/errors';
import { type Manifest, parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openCentralStore } from '../../src/app/open-central.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import { DELIVERY_WINDOW_MS, retryDelayMs } from '../../src/integrations/event-deliveries.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import type { ProviderApp } from '../../src/integrations/provider-app.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { centralAuthority } from '../../src/org/authority.ts';
import { TestClock } from '../auth/helpers.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { orgApp } from './helpers.ts';

const yaml = (body: string) =>
  parseManifest(`schemaVersion: 3\nruntime: { sdk: { version: 2.6.0 } }\n${body}`).manifest!;

const crm = yaml(`functions:
  - { name: find, entrypoint: f.ts, access: system }
provides:
  integration:
    name: crm
    title: CRM
    capabilities:
      - { name: contacts.read, description: Read. }
      - { name: deals.read, description: Deals. }
    operations:
      - { name: contacts.find, description: Find., capability: contacts.read, function: find, fake: {} }
    events:
      - { type: contact.updated, capability: contacts.read, description: Changed., fake: {} }
      - { type: deal.won, capability: deals.read, description: Won., fake: {} }
`);
const consumer = (types: string) =>
  yaml(`functions:
  - { name: onEvent, entrypoint: f.ts, access: system }
integrations:
  crm:
    provider: custom
    integration: crm
    account: app
    capabilities: [contacts.read]
    events: { function: onEvent${types} }
`);

const clock = new ManualClock('2026-01-05T10:00:00Z');
let dir: { path: string; remove: () => Promise<void> };
let central: Database;
let org: OrgIntegrations;
let connectionId: string;
const received: { app: string; payload: JsonValue }[] = [];
let failing: Set<string>;
/** Apps whose handler never answers (a broker stopped half-way through a delivery). */
const hanging = new Set<string>();
/** How many attempts entered a handler that never answers. */
let hung = 0;
/** Apps whose handler waits for its gate to open (an attempt that takes long). */
const gates = new Map<string, Promise<void>>();
/** How many attempts reached a gate. */
let entered = 0;
/** Makes `appId`'s handler wait at a closed gate; answers the function that opens it. */
function closeGate(appId: string): () => void {
  entered = 0;
  let open = () => {};
  gates.set(
    appId,
    new Promise((resolve) => {
      open = resolve;
    }),
  );
  return open;
}
/** Apps paused for their owner's verification. */
const paused = new Set<string>();
/** The error an app's handler throws, where it throws one of its own choosing. */
const throwing = new Map<string, PlatformError>();

function app(appId: string, manifest: Manifest): ProviderApp {
  return {
    ...orgApp(appId, manifest),
    paused: async () => paused.has(appId),
    runSystem: async (fn, payload) => {
      expect(fn).toBe('onEvent');
      if (hanging.has(appId)) {
        hung += 1;
        return new Promise<never>(() => {});
      }
      const gate = gates.get(appId);
      if (gate) {
        entered += 1;
        await gate;
      }
      const thrown = throwing.get(appId);
      if (thrown) throw thrown;
      if (failing.has(appId))
        throw new PlatformError({ code: 'HANDLER_DOWN', message: 'down', status: 503 });
      received.push({ app: appId, payload });
      return null;
    },
  };
}
const apps = [
  app('crm', crm),
  app('sales', consumer('')),
  app('support', consumer(', types: [deal.won]')),
];

async function open(environment: 'development' | 'production' = 'production'): Promise<void> {
  central = await openCentralStore({
    dir: dir.path,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
  });
  org = await openOrgIntegrations({
    central,
    dir: dir.path,
    apps: () => apps,
    baseUrl: () => 'http://localhost:4310',
    print: () => {},
    clock,
    environment,
  });
}

/** The sales app's delivery of event `eventId`. */
const deliveryOf = async (eventId: string) =>
  (await org.events.list('sales')).find((one) => one.eventId === eventId);

const emit = (id: string, type = 'contact.updated') =>
  org.events.emit(
    'crm',
    { trigger: 'webhook', connectionId },
    { type, id, data: { email: 'a@b.c' } },
  );

beforeAll(async () => {
  dir = await tempDir('event-deliveries-');
  await open();
  const admin = await new Accounts(central, central, new TestClock()).create(
    'ada@example.com',
    'confirmed',
  );
  const authority = centralAuthority(central);
  await authority.register(['crm', 'sales', 'support']);
  for (const id of ['crm', 'sales', 'support']) await authority.setOwner(id, admin.id);
  connectionId = (
    await org.connections.create({
      integration: 'crm',
      providerAppId: 'crm',
      kind: 'organisation',
      createdBy: admin.id,
      values: {},
    })
  ).id;
  for (const consumerAppId of ['sales', 'support']) {
    await org.bindings.bind({
      consumerAppId,
      slot: 'crm',
      account: 'app',
      personAccountId: null,
      connectionId,
      capabilities: ['contacts.read'],
      createdBy: admin.id,
    });
  }
  failing = new Set();
}, 60_000);

afterAll(async () => {
  await central?.close();
  await dir?.remove();
});

describe('emitted events in production', () => {
  it('records an event once per subscribed binding, and an id only once', async () => {
    // support subscribes to deal.won only; its binding does not grant deals.read either.
    expect(await emit('evt-1')).toBe(1);
    expect(await emit('evt-1')).toBe(0);
    expect(await emit('evt-2', 'deal.won')).toBe(0);
    expect(await deliveryOf('evt-1')).toMatchObject({
      state: 'pending',
      attempts: 0,
      eventId: 'evt-1',
      slot: 'crm',
    });
  });

  it('delivers the payload of spec 2.11 to the slot’s events Function, then drops it', async () => {
    expect(await org.deliveries.deliverDue()).toBe(1);
    const binding = await org.bindings.find('sales', 'crm');
    expect(received).toEqual([
      {
        app: 'sales',
        payload: {
          id: 'evt-1',
          type: 'contact.updated',
          occurredAt: clock.now().toISOString(),
          integration: 'crm',
          provider: 'custom',
          bindingId: binding!.id,
          data: { email: 'a@b.c' },
        },
      },
    ]);
    const delivered = await deliveryOf('evt-1');
    expect(delivered).toMatchObject({ state: 'delivered', attempts: 1, lastError: null });
    const { rows } = await central.query<{ payload: unknown }>(
      'SELECT payload FROM platform.integration_event_deliveries WHERE id = $1',
      [delivered!.id],
    );
    expect(rows[0]!.payload).toBeNull();
    expect(await org.deliveries.deliverDue()).toBe(0);
  });

  it('retries a failing handler with a growing delay, across a broker restart', async () => {
    failing.add('sales');
    received.length = 0;
    expect(await emit('evt-3')).toBe(1);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-3')).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'HANDLER_DOWN: down',
    });
    // Not before its delay.
    clock.advance(retryDelayMs(1) - 1000);
    expect(await org.deliveries.deliverDue()).toBe(0);
    clock.advance(1000);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-3')).toMatchObject({ attempts: 2 });

    // The broker stops; the delivery waits in the central store for the next one.
    await central.close();
    failing.delete('sales');
    await open();
    clock.advance(retryDelayMs(2));
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(received.map((r) => (r.payload as { id: string }).id)).toEqual(['evt-3']);
    expect(await deliveryOf('evt-3')).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  it('waits while the consumer is paused, and delivers once it resumes', async () => {
    received.length = 0;
    paused.add('sales');
    expect(await emit('evt-paused')).toBe(1);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-paused')).toMatchObject({
      state: 'pending',
      lastError: 'sales is not running.',
    });
    expect(received).toEqual([]);
    paused.delete('sales');
    clock.advance(retryDelayMs(1));
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-paused')).toMatchObject({ state: 'delivered' });
  });

  it('a broker stopped during a delivery: the next one delivers it once the attempt’s lease ends', async () => {
    received.length = 0;
    hanging.add('sales');
    expect(await emit('evt-5')).toBe(1);
    // The attempt starts and never finishes: this broker stops in the middle of its handler.
    void org.deliveries.deliverDue();
    while (hung === 0) await new Promise((r) => setTimeout(r, 5));
    await central.close();
    hanging.delete('sales');
    await open();
    // Another broker leaves it alone while the attempt may still be running...
    expect(await org.deliveries.deliverDue()).toBe(0);
    // ...and delivers it once the attempt's lease is over: one record, one delivery.
    clock.advance(30_001);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(received.map((r) => (r.payload as { id: string }).id)).toEqual(['evt-5']);
    const records = (await org.events.list('sales')).filter((one) => one.eventId === 'evt-5');
    expect(records).toEqual([expect.objectContaining({ state: 'delivered', attempts: 1 })]);
  });

  it('an attempt that runs past its hold keeps it while it runs, and is recorded once', async () => {
    received.length = 0;
    const open = closeGate('sales');
    // Only the renewal's interval is faked, so the test moves it on without waiting 10 s.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      expect(await emit('evt-long')).toBe(1);
      const attempt = org.deliveries.deliverDue();
      while (entered === 0) await new Promise((r) => setTimeout(r, 5));
      clock.advance(20_000);
      vi.advanceTimersByTime(10_000);
      const renewed = new Date(clock.now().getTime() + 30_000).getTime();
      const holdOf = async () =>
        (
          await central.query<{ lease_until: Date }>(
            `SELECT lease_until FROM platform.integration_event_deliveries WHERE event_id = 'evt-long'`,
          )
        ).rows[0]?.lease_until;
      while ((await holdOf())?.getTime() !== renewed) await new Promise((r) => setTimeout(r, 5));
      // Past the first hold but within the renewed one: nobody else attempts it.
      clock.advance(15_000);
      expect(await org.deliveries.deliverDue()).toBe(0);
      open();
      expect(await attempt).toBe(1);
    } finally {
      vi.useRealTimers();
      gates.delete('sales');
    }
    expect(received.map((r) => (r.payload as { id: string }).id)).toEqual(['evt-long']);
    expect(await deliveryOf('evt-long')).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('an attempt that outlived its hold leaves the record to the one that took it over', async () => {
    received.length = 0;
    const open = closeGate('sales');
    expect(await emit('evt-stalled')).toBe(1);
    const stalled = org.deliveries.deliverDue();
    while (entered === 0) await new Promise((r) => setTimeout(r, 5));
    gates.delete('sales');
    // The first attempt stalls past its hold without renewing it: the next pass takes it over.
    clock.advance(30_001);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-stalled')).toMatchObject({ state: 'delivered', attempts: 1 });
    // The stalled attempt ends with a failure: it does not undo the delivery recorded meanwhile.
    throwing.set(
      'sales',
      new PlatformError({ code: 'HANDLER_DOWN', message: 'late', status: 503 }),
    );
    open();
    await stalled;
    throwing.delete('sales');
    expect(await deliveryOf('evt-stalled')).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('gives up about three hours after the event, replays a failed one, and keeps the record 14 days', async () => {
    failing.add('sales');
    expect(await emit('evt-4')).toBe(1);
    const start = clock.now().getTime();
    let attempts = 0;
    while ((await deliveryOf('evt-4'))!.state === 'pending') {
      await org.deliveries.deliverDue();
      attempts += 1;
      clock.advance(retryDelayMs(attempts));
    }
    const failed = await deliveryOf('evt-4');
    expect(failed).toMatchObject({ state: 'failed', eventId: 'evt-4' });
    expect(clock.now().getTime() - start).toBeGreaterThan(DELIVERY_WINDOW_MS - 30 * 60_000);
    expect(clock.now().getTime() - start).toBeLessThan(DELIVERY_WINDOW_MS + 30 * 60_000);
    expect(failed!.attempts).toBeGreaterThan(8);
    failing.delete('sales');

    // A failed delivery keeps its payload, so its owner can replay it: the handler runs again.
    expect(failed!.replayable).toBe(true);
    received.length = 0;
    expect(await org.events.replay('sales', failed!.id, 'r')).toMatchObject({
      state: 'pending',
      replayable: false,
    });
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(received.map((r) => (r.payload as { id: string }).id)).toEqual(['evt-4']);
    expect(await deliveryOf('evt-4')).toMatchObject({ state: 'delivered', replayable: false });
    const { rows } = await central.query<{ payload: unknown }>(
      'SELECT payload FROM platform.integration_event_deliveries WHERE id = $1',
      [failed!.id],
    );
    expect(rows[0]!.payload).toBeNull();
    // A delivered one cannot be replayed, nor one the app never had.
    await expect(org.events.replay('sales', failed!.id, 'r')).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/was delivered/),
    });
    await expect(org.events.replay('support', failed!.id, 'r')).rejects.toMatchObject({
      code: 'INTEGRATION_EVENT_DELIVERY_NOT_FOUND',
    });

    clock.advance(14 * 24 * 3600_000 + 60_000);
    await org.deliveries.deliverDue();
    expect(await org.events.list('sales')).toEqual([]);
  });

  it('injects no synthetic events and switches no slot live in production', async () => {
    await expect(
      org.events.inject('sales', 'crm', { type: 'contact.updated' }, 'r'),
    ).rejects.toMatchObject({
      code: 'FEATURE_NOT_AVAILABLE',
    });
    expect(() => org.admin.setMode('sales', 'crm', 'live')).toThrow(
      /production every call is live/,
    );
  });

  it('leaves a pending production delivery to production when the same folders run in development', async () => {
    received.length = 0;
    failing.add('sales');
    expect(await emit('evt-env')).toBe(1);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-env')).toMatchObject({
      state: 'pending',
      environment: 'production',
    });

    // The folders restart under platform dev: the delivery is not theirs to attempt.
    await org.stop();
    await central.close();
    failing.delete('sales');
    await open('development');
    for (let i = 0; i < 3; i += 1) {
      clock.advance(retryDelayMs(4));
      expect(await org.deliveries.deliverDue()).toBe(0);
    }
    expect(received).toEqual([]);
    expect(await deliveryOf('evt-env')).toMatchObject({ state: 'pending', attempts: 1 });

    // Production again delivers it.
    await org.stop();
    await central.close();
    await open('production');
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(received.map((r) => (r.payload as { id: string }).id)).toEqual(['evt-env']);
    expect(await deliveryOf('evt-env')).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('checks the binding’s capability again at each attempt', async () => {
    received.length = 0;
    failing.add('sales');
    expect(await emit('evt-narrowed')).toBe(1);
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-narrowed')).toMatchObject({ state: 'pending' });
    failing.delete('sales');
    // The binding no longer grants contacts.read by the next attempt.
    await central.query(
      `UPDATE platform.bindings SET capabilities = '{deals.read}' WHERE consumer_app_id = 'sales'`,
    );
    clock.advance(retryDelayMs(1));
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(received).toEqual([]);
    expect(await deliveryOf('evt-narrowed')).toMatchObject({
      state: 'failed',
      attempts: 2,
      lastError: expect.stringMatching(/^INTEGRATION_CAPABILITY_NOT_GRANTED: .*contacts\.read/),
    });
    await central.query(
      `UPDATE platform.bindings SET capabilities = '{contacts.read}' WHERE consumer_app_id = 'sales'`,
    );
  });

  it('checks the capability the slot asks for now at each attempt', async () => {
    received.length = 0;
    failing.add('sales');
    expect(await emit('evt-unrequested')).toBe(1);
    expect(await org.deliveries.deliverDue()).toBe(1);
    failing.delete('sales');
    // The consumer's platform.yaml stops asking for contacts.read; its binding is unchanged.
    const before = apps[1]!;
    apps[1] = app(
      'sales',
      yaml(`functions:
  - { name: onEvent, entrypoint: f.ts, access: system }
integrations:
  crm:
    provider: custom
    integration: crm
    account: app
    capabilities: [deals.read]
    events: { function: onEvent }
`),
    );
    try {
      clock.advance(retryDelayMs(1));
      expect(await org.deliveries.deliverDue()).toBe(1);
    } finally {
      apps[1] = before;
    }
    expect(received).toEqual([]);
    expect(await deliveryOf('evt-unrequested')).toMatchObject({
      state: 'failed',
      lastError: expect.stringMatching(/^INTEGRATION_CAPABILITY_NOT_GRANTED: /),
    });
  });

  it('ends a delivery whose handler throws a platform code the catalog marks not retryable', async () => {
    throwing.set(
      'sales',
      new PlatformError({ code: 'PERMISSION_DENIED', message: 'The policy refuses it.' }),
    );
    try {
      expect(await emit('evt-refused')).toBe(1);
      expect(await org.deliveries.deliverDue()).toBe(1);
    } finally {
      throwing.delete('sales');
    }
    expect(await deliveryOf('evt-refused')).toMatchObject({
      state: 'failed',
      attempts: 1,
      lastError: 'PERMISSION_DENIED: The policy refuses it.',
    });
    // A retryable platform code is tried again.
    throwing.set('sales', new PlatformError({ code: 'STORAGE_UNAVAILABLE', message: 'Busy.' }));
    try {
      expect(await emit('evt-busy')).toBe(1);
      expect(await org.deliveries.deliverDue()).toBe(1);
    } finally {
      throwing.delete('sales');
    }
    expect(await deliveryOf('evt-busy')).toMatchObject({ state: 'pending', attempts: 1 });
    clock.advance(retryDelayMs(1));
    expect(await org.deliveries.deliverDue()).toBe(1);
    expect(await deliveryOf('evt-busy')).toMatchObject({ state: 'delivered', attempts: 2 });
  });
});
