import { describe, expect, it } from 'vitest';
import { matchRealtimeChannel } from '../../src/contract/index.ts';
import { BASE, expectOne, run } from './helpers.ts';

describe('realtime', () => {
  it('accepts channel rules and tables, filling in the defaults', async () => {
    const { errors, manifest } = await run(
      `${BASE}realtime:\n  channels:\n    "room:*": { send: functions }\n    lobby: { join: public }\n  tables: [todos]\n`,
    );
    expect(errors).toEqual([]);
    expect(manifest?.realtime).toEqual({
      channels: {
        'room:*': { join: 'signed-in', send: 'functions' },
        lobby: { join: 'public', send: 'signed-in' },
      },
      tables: ['todos'],
    });
  });

  it('rejects a channel key that is not a name or a prefix ending in *', async () => {
    await expectOne(
      `${BASE}realtime:\n  channels:\n    👉"room *": { join: public }\n`,
      'REALTIME_CHANNEL_INVALID',
      'realtime.channels.room *',
    );
  });

  it('rejects a table that is not a lowercase table name', async () => {
    await expectOne(
      `${BASE}realtime:\n  tables: [todos, 👉Todos]\n`,
      'REALTIME_TABLE_INVALID',
      'realtime.tables[1]',
    );
  });

  it('rejects an unknown access level with its position', async () => {
    await expectOne(
      `${BASE}realtime:\n  channels:\n    lobby: { join: 👉everyone }\n`,
      'INVALID_VALUE',
      'realtime.channels.lobby.join',
    );
  });
});

describe('matchRealtimeChannel', () => {
  const rules = { 'room:*': 'room', 'room:vip:*': 'vip', lobby: 'lobby', '*': 'any' };
  it('takes the exact name, else the longest matching prefix', () => {
    expect(matchRealtimeChannel(rules, 'lobby')).toBe('lobby');
    expect(matchRealtimeChannel(rules, 'room:1')).toBe('room');
    expect(matchRealtimeChannel(rules, 'room:vip:1')).toBe('vip');
    expect(matchRealtimeChannel(rules, 'other')).toBe('any');
    expect(matchRealtimeChannel({ 'room:*': 1 }, 'roo')).toBeUndefined();
  });
});
