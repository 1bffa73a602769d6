import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { notesMigration, sleep, TestSocket } from './realtime-client.ts';

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';

let started: Awaited<ReturnType<typeof brokerFor>>;
const sockets: TestSocket[] = [];
const open = async (user?: string) => {
  const socket = await TestSocket.open(
    started.broker.server.url,
    user ? { 'x-test-user': user } : {},
  );
  sockets.push(socket);
  return socket;
};

beforeAll(async () => {
  started = await brokerFor(
    { 'migrations/001_notes.sql': notesMigration },
    {
      realtime: {
        channels: {
          'room:*': { join: 'signed-in', send: 'signed-in' },
          lobby: { join: 'public', send: 'functions' },
        },
        tables: ['notes'],
      },
    },
  );
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) await socket.close();
  await started?.cleanup();
});

describe('realtime channels', () => {
  it('delivers a broadcast to the other members of a channel, not back to its sender', async () => {
    const alice = await open(ALICE);
    const bob = await open(BOB);
    expect(await alice.request({ type: 'join', channel: 'room:1' })).toMatchObject({ ok: true });
    expect(await bob.request({ type: 'join', channel: 'room:1' })).toMatchObject({ ok: true });
    const sent = await alice.request({
      type: 'broadcast',
      channel: 'room:1',
      event: 'wave',
      payload: { hello: 'bob' },
    });
    expect(sent).toMatchObject({ ok: true, seq: expect.any(Number) });
    const got = await bob.waitFor((f) => f.type === 'broadcast');
    expect(got).toMatchObject({
      channel: 'room:1',
      event: 'wave',
      payload: { hello: 'bob' },
      from: { kind: 'user', id: ALICE },
      seq: sent.seq,
    });
    expect(got).not.toHaveProperty('sender');
    await sleep(100);
    expect(alice.of('broadcast')).toEqual([]);
  });

  it('refuses undeclared channels, anonymous joins of signed-in channels and browser sends on function channels', async () => {
    const anonymous = await open();
    const nope = await anonymous.request({ type: 'join', channel: 'other:1' });
    expect(nope).toMatchObject({ ok: false, error: { code: 'REALTIME_CHANNEL_NOT_DECLARED' } });
    const denied = await anonymous.request({ type: 'join', channel: 'room:1' });
    expect(denied).toMatchObject({ ok: false, error: { code: 'AUTH_REQUIRED' } });
    expect(await anonymous.request({ type: 'join', channel: 'lobby' })).toMatchObject({ ok: true });
    const send = await anonymous.request({
      type: 'broadcast',
      channel: 'lobby',
      event: 'x',
      payload: 1,
    });
    expect(send).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
  });

  it('answers limit breaches with their codes', async () => {
    const alice = await open(ALICE);
    await alice.request({ type: 'join', channel: 'room:big' });
    const big = await alice.request({
      type: 'broadcast',
      channel: 'room:big',
      event: 'x',
      payload: 'x'.repeat(40_000),
    });
    expect(big).toMatchObject({ ok: false, error: { code: 'REALTIME_MESSAGE_TOO_LARGE' } });
    const replies = await Promise.all(
      Array.from({ length: 60 }, () => alice.request({ type: 'leave', channel: 'room:none' })),
    );
    expect(replies.filter((r) => r.ok === false)[0]).toMatchObject({
      error: { code: 'REALTIME_RATE_LIMITED' },
    });
  });

  it('refuses a connection beyond the connections of one user', async () => {
    const user = '33333333-3333-4333-8333-333333333333';
    const many = await Promise.all(Array.from({ length: 10 }, () => open(user)));
    const extra = await open(user);
    const error = await extra.waitFor((f) => f.type === 'error');
    expect(error).toMatchObject({ error: { code: 'REALTIME_TOO_MANY_CONNECTIONS' } });
    for (const socket of many) await socket.close();
  });

  it('shares presence: members on joining, joins and leaves as they happen', async () => {
    const alice = await open(ALICE);
    const bob = await open(BOB);
    await alice.request({ type: 'join', channel: 'room:p', presence: { name: 'Alice' } });
    const joined = await bob.request({
      type: 'join',
      channel: 'room:p',
      presence: { name: 'Bob' },
    });
    expect(joined.members).toEqual([
      expect.objectContaining({ user: ALICE, state: { name: 'Alice' } }),
      expect.objectContaining({ user: BOB, state: { name: 'Bob' } }),
    ]);
    const bobJoin = await alice.waitFor(
      (f) => f.type === 'presence' && (f.joins as { user: string }[])[0]?.user === BOB,
    );
    const bobKey = (bobJoin.joins as { key: string }[])[0]?.key;
    await bob.close();
    const left = await alice.waitFor(
      (f) => f.type === 'presence' && (f.leaves as { key: string }[])[0]?.key === bobKey,
    );
    expect(left).toMatchObject({ channel: 'room:p', leaves: [{ user: BOB }] });
  });

  it('counts the messages a rejoin missed after the sequence number it last saw', async () => {
    const alice = await open(ALICE);
    const bob = await open(BOB);
    const first = await alice.request({ type: 'join', channel: 'room:gap' });
    await bob.request({ type: 'join', channel: 'room:gap' });
    for (const n of [1, 2, 3]) {
      await bob.request({ type: 'broadcast', channel: 'room:gap', event: 'n', payload: n });
    }
    const again = await alice.request({ type: 'join', channel: 'room:gap', after: first.seq });
    expect(again).toMatchObject({ ok: true, missed: 3 });
  });
});

describe('database changes', () => {
  it('delivers each change only to subscribers who may select the row, and a lost row as a delete', async () => {
    const { data } = started.broker;
    const alice = await open(ALICE);
    const bob = await open(BOB);
    expect(await alice.request({ type: 'subscribe', id: 'a', table: 'notes' })).toMatchObject({
      ok: true,
    });
    await bob.request({ type: 'subscribe', id: 'b', table: 'notes' });
    const secret = await data.create(userCaller(ALICE), 'notes', { title: 'private' });
    const insert = await alice.waitFor((f) => f.type === 'change' && f.op === 'insert');
    expect(insert).toMatchObject({
      id: 'a',
      table: 'notes',
      row: { id: secret.id, title: 'private' },
    });
    await data.updateById(userCaller(ALICE), 'notes', secret.id, { shared: true });
    const seen = await bob.waitFor((f) => f.type === 'change');
    expect(seen).toMatchObject({ op: 'update', row: { id: secret.id, shared: true } });
    // Unshared: Bob could see it before and not after.
    await data.updateById(userCaller(ALICE), 'notes', secret.id, { shared: false });
    const gone = await bob.waitFor((f) => f.type === 'change' && f.op === 'delete');
    expect(gone).toMatchObject({ id: 'b', old: { id: secret.id } });
    expect(gone).not.toHaveProperty('row');
    await sleep(150);
    // Bob never saw the private insert.
    expect(bob.of('change').map((f) => f.op)).toEqual(['update', 'delete']);
    expect(alice.of('change').map((f) => f.op)).toEqual(['insert', 'update', 'update']);
  });

  it('applies the equality filter and refuses undeclared tables', async () => {
    const alice = await open(ALICE);
    await alice.request({
      type: 'subscribe',
      id: 'work',
      table: 'notes',
      filter: { list: 'work' },
    });
    const refused = await alice.request({ type: 'subscribe', id: 'x', table: 'secrets_kept' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'REALTIME_TABLE_NOT_DECLARED' } });
    const bad = await alice.request({
      type: 'subscribe',
      id: 'y',
      table: 'notes',
      filter: { nope: 1 },
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    await started.broker.data.create(userCaller(ALICE), 'notes', { title: 'home', list: 'home' });
    const work = await started.broker.data.create(userCaller(ALICE), 'notes', {
      title: 'w',
      list: 'work',
    });
    const change = await alice.waitFor((f) => f.type === 'change');
    expect(change).toMatchObject({ id: 'work', row: { id: work.id } });
    await sleep(100);
    expect(alice.of('change')).toHaveLength(1);
  });
});
