import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { notesMigration, sleep, TestSocket } from './realtime-client.ts';

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';

let pg: PostgresServer | undefined;
const brokers: Awaited<ReturnType<typeof brokerFor>>[] = [];
const sockets: TestSocket[] = [];

beforeAll(async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase('realtime_two');
  for (let i = 0; i < 2; i += 1) {
    brokers.push(
      await brokerFor(
        { 'migrations/001_notes.sql': notesMigration },
        {
          appId: 'shared-app',
          databaseUrl: url,
          realtime: {
            channels: { 'room:*': { join: 'signed-in', send: 'signed-in' } },
            tables: ['notes'],
          },
        },
      ),
    );
  }
}, 90_000);
afterAll(async () => {
  for (const socket of sockets) await socket.close();
  for (const broker of brokers) await broker.cleanup();
  await pg?.stop();
}, 60_000);

const open = async (index: number, user: string) => {
  const socket = await TestSocket.open(brokers[index]!.broker.server.url, { 'x-test-user': user });
  sockets.push(socket);
  return socket;
};

describe('two brokers on one PostgreSQL', () => {
  it('delivers a change written through broker A to a subscriber on broker B exactly once', async () => {
    const [a] = brokers;
    const bobOnB = await open(1, BOB);
    const aliceOnA = await open(0, ALICE);
    await bobOnB.request({ type: 'subscribe', id: 'n', table: 'notes' });
    await aliceOnA.request({ type: 'subscribe', id: 'n', table: 'notes' });
    const note = await a!.broker.data.create(userCaller(ALICE), 'notes', {
      title: 'for everyone',
      shared: true,
    });
    await a!.broker.data.create(userCaller(ALICE), 'notes', { title: 'mine only' });
    const change = await bobOnB.waitFor((f) => f.type === 'change');
    expect(change).toMatchObject({ op: 'insert', row: { id: note.id, title: 'for everyone' } });
    await aliceOnA.waitFor(
      (f) => f.type === 'change' && (f.row as { title: string }).title === 'mine only',
    );
    await sleep(500);
    expect(bobOnB.of('change')).toHaveLength(1);
    expect(aliceOnA.of('change')).toHaveLength(2);
  });

  it('delivers a broadcast and presence sent through one broker to members on the other, once each', async () => {
    const aliceOnA = await open(0, ALICE);
    const bobOnB = await open(1, BOB);
    await bobOnB.request({ type: 'join', channel: 'room:x' });
    const joined = await aliceOnA.request({
      type: 'join',
      channel: 'room:x',
      presence: { at: 'A' },
    });
    expect(joined.members).toEqual([expect.objectContaining({ user: ALICE, state: { at: 'A' } })]);
    await bobOnB.waitFor((f) => f.type === 'presence');
    await aliceOnA.request({ type: 'broadcast', channel: 'room:x', event: 'hi', payload: 'there' });
    await bobOnB.waitFor((f) => f.type === 'broadcast');
    await sleep(500);
    expect(bobOnB.of('broadcast')).toHaveLength(1);
    expect(bobOnB.of('presence')).toHaveLength(1);
  });

  it('listens again after its LISTEN connection is cut, and delivers from then on', async () => {
    const aliceOnA = await open(0, ALICE);
    const bobOnB = await open(1, BOB);
    await bobOnB.request({ type: 'join', channel: 'room:cut' });
    await aliceOnA.request({ type: 'join', channel: 'room:cut' });
    const { rows } = await brokers[0]!.broker.db.query<{ cut: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity
        WHERE query = 'LISTEN "platform_realtime"' AND pid <> pg_backend_pid()`,
    );
    expect(rows[0]?.cut).toBe(2);
    await sleep(2500);
    await aliceOnA.request({ type: 'broadcast', channel: 'room:cut', event: 'back', payload: 1 });
    expect(await bobOnB.waitFor((f) => f.type === 'broadcast')).toMatchObject({ event: 'back' });
  });
});
