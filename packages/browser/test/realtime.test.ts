import { describe, expect, it } from 'vitest';
import { createRealtime, type RealtimeGap, type RowChange } from '../src/realtime/index.ts';
import { createMockRealtime } from '../src/testing/index.ts';

const setup = () => {
  const mock = createMockRealtime();
  const realtime = createRealtime({
    appUrl: 'http://app.test',
    WebSocket: mock.WebSocket,
    minReconnectMs: 5,
    maxReconnectMs: 5,
  });
  return { mock, realtime };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('@platform/browser/realtime with the simulated broker', () => {
  it('receives simulated broadcasts, presence and row changes', async () => {
    const { mock, realtime } = setup();
    const room = await realtime.channel('room:1', { presence: { name: 'Ada' } });
    expect(mock.sent[0]).toMatchObject({
      type: 'join',
      channel: 'room:1',
      presence: { name: 'Ada' },
    });
    const heard: unknown[] = [];
    room.on('moved', (payload, meta) => heard.push([payload, meta.from]));
    const members: number[] = [];
    room.onPresence((list) => members.push(list.length));
    mock.broadcast('room:1', 'moved', { x: 1 });
    mock.broadcast('room:1', 'other', {});
    mock.presence('room:1', { joins: [{ key: 'k1', user: 'u1', state: {} }] });
    const changes: RowChange[] = [];
    await realtime.changes('todos', (change) => changes.push(change));
    mock.change('todos', { op: 'insert', row: { id: 't1' } });
    await settle();
    expect(heard).toEqual([[{ x: 1 }, { kind: 'function' }]]);
    expect(members).toEqual([0, 1]);
    expect(changes).toMatchObject([{ op: 'insert', row: { id: 't1' } }]);
    realtime.close();
  });

  it('reconnects after a cut, joins again and reports what it missed', async () => {
    const { mock, realtime } = setup();
    const gaps: RealtimeGap[] = [];
    realtime.onGap((gap) => gaps.push(gap));
    await realtime.channel('room:2');
    await realtime.changes('todos', () => undefined);
    mock.broadcast('room:2', 'n', 1);
    mock.drop();
    mock.broadcast('room:2', 'n', 2);
    mock.broadcast('room:2', 'n', 3);
    await settle();
    expect(mock.sent.filter((f) => f.type === 'join').at(-1)).toMatchObject({ after: 1 });
    expect(gaps).toEqual([
      { channel: 'room:2', missed: 2 },
      { table: 'todos', subscription: expect.any(String), missed: null },
    ]);
    realtime.close();
  });

  it('rejects with the broker’s error code', async () => {
    const { mock, realtime } = setup();
    mock.refuseNext('join', { code: 'REALTIME_CHANNEL_NOT_DECLARED', message: 'No.' });
    await expect(realtime.channel('nope')).rejects.toMatchObject({
      code: 'REALTIME_CHANNEL_NOT_DECLARED',
      status: 404,
    });
    realtime.close();
  });
});
