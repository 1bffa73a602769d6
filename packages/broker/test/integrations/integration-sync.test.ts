// The providers' sync schedules (spec 2.9, 8): `sync.function` runs on its schedule in its time
// zone for each active connection bound into at least one app, with input `{}`, trigger `sync`
// and the connection's credentials; never two at a time for one connection; a 401 asks for a
// reconnection.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { type JsonValue, PlatformError } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import type { ProviderCall } from '../../src/integrations/provider-app.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { openTestCentral } from '../helpers/db.ts';
import { orgApp } from './helpers.ts';

const manifest = parseManifest(`schemaVersion: 3
runtime: { sdk: { version: 2.6.0 } }
functions:
  - { name: pull, entrypoint: f.ts, access: system }
  - { name: list, entrypoint: f.ts, access: system }
provides:
  integration:
    name: tickets
    title: Tickets
    credentials:
      - { name: TICKETS_KEY, label: Key }
    capabilities:
      - { name: read, description: Read. }
    operations:
      - { name: tickets.list, description: List., capability: read, function: list, fake: [] }
    sync: { function: pull, schedule: '0 2 * * *', timezone: Europe/Berlin }
`).manifest!;

const ADMIN = '00000000-0000-4000-8000-000000000001';
// 2025-03-29 12:00 UTC: the next 02:00 in Berlin does not exist (clocks go to 03:00 that night).
const clock = new ManualClock('2025-03-29T12:00:00Z');
let central: Database;
let org: OrgIntegrations;
const calls: ProviderCall[] = [];
let answer: () => Promise<JsonValue>;

let pausedNow = false;
const provider = {
  ...orgApp('tickets', manifest, async (fn, call) => {
    expect(fn).toBe('pull');
    calls.push(call);
    return answer();
  }),
  paused: async () => pausedNow,
};

beforeAll(async () => {
  central = await openTestCentral();
  org = await openOrgIntegrations({
    central,
    dir: undefined,
    apps: () => [provider],
    baseUrl: () => 'http://localhost:4310',
    print: () => {},
    clock,
  });
});

afterAll(async () => {
  await org.sync.stop();
  await central.close();
});

beforeEach(() => {
  calls.length = 0;
  answer = async () => null;
});

async function connection(key: string, bound: boolean): Promise<string> {
  const { id } = await org.connections.create({
    integration: 'tickets',
    providerAppId: 'tickets',
    kind: 'organisation',
    createdBy: ADMIN,
    values: { TICKETS_KEY: key },
  });
  if (bound) {
    await org.bindings.bind({
      consumerAppId: `app-${key}`,
      slot: 'tickets',
      account: 'app',
      personAccountId: null,
      connectionId: id,
      capabilities: ['read'],
      createdBy: ADMIN,
    });
  }
  return id;
}

/** Ticks and waits for the syncs it started. */
async function tickAndWait(): Promise<string[]> {
  const finished = new Set<string>();
  const off = org.sync.onRun((run) => finished.add(run.connectionId));
  const started = await org.sync.tick();
  while (started.some((id) => !finished.has(id))) await new Promise((r) => setTimeout(r, 5));
  off();
  return started;
}

/** Holds the syncs' answers until the returned function releases the one begun last. */
function holdAnswers(): () => void {
  let release = () => {};
  answer = () =>
    new Promise((resolve) => {
      release = () => resolve(null);
    });
  return () => release();
}

describe('the sync schedule', () => {
  let bound: string;
  let unbound: string;

  it('starts from now for a connection first seen, and skips unbound connections', async () => {
    bound = await connection('k-bound', true);
    unbound = await connection('k-unbound', false);
    expect(await tickAndWait()).toEqual([]);
    clock.advance(60_000);
    expect(await tickAndWait()).toEqual([]);
  });

  it('runs at the first minute after a DST gap, with input {} and the credentials', async () => {
    // 2025-03-30 01:00 UTC is 03:00 in Berlin, the first valid minute after 02:00 was skipped.
    clock.set('2025-03-30T00:59:00Z');
    expect(await tickAndWait()).toEqual([]);
    clock.set('2025-03-30T01:00:00Z');
    expect(await tickAndWait()).toEqual([bound]);
    expect(calls).toEqual([
      expect.objectContaining({
        input: {},
        trigger: 'sync',
        connectionId: bound,
        credentials: { TICKETS_KEY: 'k-bound' },
      }),
    ]);
    expect(calls.some((call) => call.connectionId === unbound)).toBe(false);
    // Once per occurrence.
    clock.advance(60_000);
    expect(await tickAndWait()).toEqual([]);
  });

  it('never overlaps for one connection: occurrences missed while it ran coalesce into one', async () => {
    const release = holdAnswers();
    clock.set('2025-03-31T00:00:00Z'); // 02:00 Berlin (summer time)
    expect(await org.sync.tick()).toEqual([bound]);
    // Two more nights pass while that sync still runs: nothing starts beside it.
    clock.set('2025-04-02T00:30:00Z');
    expect(await org.sync.tick()).toEqual([]);
    const done = new Promise<void>((resolve) => org.sync.onRun(() => resolve()));
    release();
    await done;
    answer = async () => null;
    // Then one run for the missed occurrences.
    expect(await tickAndWait()).toEqual([bound]);
    clock.advance(60_000);
    expect(await tickAndWait()).toEqual([]);
  });

  it('gives a sync the 15-minute Function timeout; one past it leaves the next run alone', async () => {
    answer = async () => {
      throw new PlatformError({ code: 'FUNCTION_TIMEOUT', message: 'past its time', status: 504 });
    };
    const runs: string[] = [];
    const off = org.sync.onRun((run) => runs.push(run.result));
    clock.set('2025-04-03T00:00:00Z');
    expect(await tickAndWait()).toEqual([bound]);
    expect(calls.at(-1)!.timeoutMs).toBe(15 * 60 * 1000);
    expect(runs).toEqual(['FUNCTION_TIMEOUT']);
    expect((await org.connections.get(bound)).condition).toBe('active');
    answer = async () => null;
    clock.set('2025-04-04T00:00:00Z');
    expect(await tickAndWait()).toEqual([bound]);
    expect(runs).toEqual(['FUNCTION_TIMEOUT', 'ok']);
    off();
  });

  it('runs nothing while the provider is paused, and the latest missed occurrence on resume', async () => {
    pausedNow = true;
    clock.set('2025-04-04T12:00:00Z');
    expect(await tickAndWait()).toEqual([]);
    clock.set('2025-04-05T00:30:00Z');
    expect(await tickAndWait()).toEqual([]);
    pausedNow = false;
    expect(await tickAndWait()).toEqual([bound]);
    clock.advance(60_000);
    expect(await tickAndWait()).toEqual([]);
  });

  it('a sync the provider refuses with 401 makes the connection Reconnect required', async () => {
    answer = async () => {
      throw new PlatformError({ code: 'KEY_REJECTED', message: 'no', status: 401 });
    };
    clock.set('2025-04-06T00:00:00Z');
    expect(await tickAndWait()).toEqual([bound]);
    expect((await org.connections.get(bound)).condition).toBe('reconnect_required');
    // And it is no longer synced until reconnected.
    clock.set('2025-04-07T00:00:00Z');
    expect(await tickAndWait()).toEqual([]);
  });
});

describe('a sync whose broker was killed', () => {
  interface Held {
    sync_lease_until: Date;
    last_sync_at: Date;
    sync_lease_holder: Record<string, unknown> | null;
  }
  const held = async (id: string) =>
    (
      await central.query<Held>(
        'SELECT sync_lease_until, last_sync_at, sync_lease_holder FROM platform.connections WHERE id = $1',
        [id],
      )
    ).rows[0]!;
  // What a broker killed (SIGKILL) during the run leaves behind: the row as it was, naming it.
  const leaveAsKilled = (id: string, row: Held, holder: Record<string, unknown>) =>
    central.query(
      `UPDATE platform.connections
          SET sync_lease_until = $2, last_sync_at = $3, sync_lease_holder = $4::jsonb
        WHERE id = $1`,
      [id, row.sync_lease_until, row.last_sync_at, JSON.stringify(holder)],
    );

  it('is taken over at start and runs again, instead of waiting out its lease', async () => {
    const id = await connection('killed', true);
    clock.set('2025-04-10T12:00:00Z');
    expect(await tickAndWait()).toEqual([]);
    const release = holdAnswers();
    clock.set('2025-04-11T00:00:00Z'); // 02:00 Berlin
    expect(await org.sync.tick()).toEqual([id]);
    const running = await held(id);
    expect(running.sync_lease_holder).toMatchObject({
      host: hostname(),
      pid: process.pid,
      scheduledAt: '2025-04-11T00:00:00.000Z',
    });
    // A live holder keeps its lease.
    expect(await org.sync.takeOverDeadLeases()).toEqual([]);
    const done = new Promise<void>((resolve) => org.sync.onRun(() => resolve()));
    release();
    await done;
    answer = async () => null;
    expect((await held(id)).sync_lease_holder).toBeNull();

    // The same run, its broker killed: a process that is gone.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    expect(gone).toBeGreaterThan(0);
    await leaveAsKilled(id, running, { ...running.sync_lease_holder, pid: gone });
    clock.advance(30_000);
    // Left alone, the lease would hold the connection for the rest of its minute.
    expect(await tickAndWait()).toEqual([]);
    // A broker on another machine is never judged from here: its lease runs out.
    await leaveAsKilled(id, running, {
      ...running.sync_lease_holder,
      pid: gone,
      host: 'elsewhere',
    });
    expect(await org.sync.takeOverDeadLeases()).toEqual([]);
    await leaveAsKilled(id, running, { ...running.sync_lease_holder, pid: gone });
    const before = calls.length;
    expect(await org.sync.takeOverDeadLeases()).toEqual([id]);
    // The interrupted occurrence runs again at once.
    expect(await tickAndWait()).toEqual([id]);
    expect(calls.length).toBe(before + 1);
    clock.advance(60_000);
    expect(await tickAndWait()).toEqual([]);
  });

  it('on another machine: its hold runs out a minute after its last renewal, and the occurrence runs again', async () => {
    const id = await connection('elsewhere', true);
    // Only this connection is synced from here on.
    const { rows: others } = await central.query<{ id: string }>(
      `SELECT id FROM platform.connections WHERE id <> $1 AND condition = 'active'`,
      [id],
    );
    for (const other of others) await org.connections.requireReconnect(other.id);
    clock.set('2025-04-12T12:00:00Z');
    expect(await tickAndWait()).toEqual([]);
    const release = holdAnswers();
    // Only the renewal's interval is faked, so the test moves it on without waiting 20 s.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      clock.set('2025-04-13T00:00:00Z'); // 02:00 Berlin
      expect(await org.sync.tick()).toEqual([id]);
      // A long run renews its hold: past the first minute, nobody takes it over.
      clock.advance(50_000);
      vi.advanceTimersByTime(20_000);
      const renewed = clock.now().getTime() + 60_000;
      while ((await held(id)).sync_lease_until.getTime() !== renewed)
        await new Promise((r) => setTimeout(r, 5));
      clock.advance(30_000);
      expect(await org.sync.tick()).toEqual([]);
      const done = new Promise<void>((resolve) => org.sync.onRun(() => resolve()));
      release();
      await done;
    } finally {
      vi.useRealTimers();
    }
    answer = async () => null;
    const running = await held(id);
    expect(running.sync_lease_holder).toBeNull();

    // The same run again, its broker on another machine killed: the row names it, and its hold
    // is the last one it renewed.
    const holder = {
      host: 'elsewhere',
      pid: 1,
      bootedAt: 0,
      scheduledAt: '2025-04-13T00:00:00.000Z',
    };
    await leaveAsKilled(
      id,
      { ...running, sync_lease_until: new Date(clock.now().getTime() + 60_000) },
      holder,
    );
    clock.advance(59_000);
    expect(await tickAndWait()).toEqual([]);
    const before = calls.length;
    clock.advance(2_000);
    // The interrupted occurrence runs again, once.
    expect(await tickAndWait()).toEqual([id]);
    expect(calls.length).toBe(before + 1);
    expect((await held(id)).sync_lease_holder).toBeNull();
    clock.advance(60_000);
    expect(await tickAndWait()).toEqual([]);
  });
});
