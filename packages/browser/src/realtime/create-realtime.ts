import { type JsonObject, PlatformError } from '@platform/errors';
import { realtimeRoutes } from '@platform/schema/routes';
import type {
  PlatformRealtime,
  PresenceMember,
  RealtimeChannel,
  RealtimeGap,
  RealtimeJson,
  RealtimeOptions,
  RealtimeSender,
  RealtimeStatus,
  RowChange,
} from './types.ts';

type Frame = Record<string, unknown> & { type: string };
type Listeners<T> = Set<(value: T) => void>;

const add = <T>(set: Listeners<T>, listener: (value: T) => void) => {
  set.add(listener);
  return () => {
    set.delete(listener);
  };
};

const emit = <T>(set: Listeners<T>, value: T) => {
  for (const listener of set) listener(value);
};

/** What the client rejoins after a reconnect. */
interface Joined {
  readonly frame: Frame;
  /** The highest sequence number seen: a rejoin sends it as `after`. */
  seq: number;
  members: Map<string, PresenceMember>;
  readonly presence: Listeners<readonly PresenceMember[]>;
  readonly events: Map<
    string,
    Listeners<[RealtimeJson, { event: string; from: RealtimeSender; seq: number }]>
  >;
  readonly changes?: (change: RowChange<never>) => void;
}

/**
 * Creates the realtime client of one app (docs/realtime.md). The socket opens on first use and
 * reconnects after a loss, waiting `minReconnectMs` and doubling up to `maxReconnectMs` (with
 * jitter); every channel and subscription is then joined again, and {@link PlatformRealtime.onGap}
 * reports what may have been missed meanwhile, by the sequence numbers each channel carries.
 *
 * @example
 * ```ts
 * import { createRealtime } from '@platform/browser/realtime';
 * const realtime = createRealtime();
 * const room = await realtime.channel('room:42', { presence: { name: 'Ada' } });
 * room.on('moved', (payload) => console.log(payload));
 * room.onPresence((members) => console.log(members.length, 'here'));
 * await realtime.changes('todos', (change) => console.log(change.op));
 * ```
 */
export function createRealtime(options: RealtimeOptions = {}): PlatformRealtime {
  const min = options.minReconnectMs ?? 500;
  const max = options.maxReconnectMs ?? 30_000;
  const joined = new Map<string, Joined>();
  const pending = new Map<
    string,
    { resolve: (f: Frame) => void; reject: (e: PlatformError) => void }
  >();
  const gaps: Listeners<RealtimeGap> = new Set();
  const statuses: Listeners<RealtimeStatus> = new Set();
  const errors: Listeners<PlatformError> = new Set();
  let socket: WebSocket | undefined;
  let opened: Promise<WebSocket> | undefined;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let refs = 0;

  const url = () => {
    const base = options.appUrl ?? globalThis.location?.origin;
    if (!base) throw new TypeError('createRealtime needs `appUrl` outside a browser page.');
    return new URL(realtimeRoutes.socket.path, base).href.replace(/^http/, 'ws');
  };

  const fail = (error: unknown) => {
    const e = error as { code: string; message: string; details?: JsonObject };
    return new PlatformError({ code: e.code, message: e.message, details: e.details });
  };

  const connect = (): Promise<WebSocket> => {
    opened ??= new Promise((resolve, reject) => {
      emit(statuses, 'connecting');
      const ws = new (options.WebSocket ?? WebSocket)(url());
      ws.onopen = () => {
        socket = ws;
        attempt = 0;
        emit(statuses, 'open');
        resolve(ws);
        // Joins again whatever was joined before the connection was lost.
        for (const entry of joined.values()) void rejoin(entry);
      };
      ws.onmessage = (event) => receive(JSON.parse(String(event.data)) as Frame);
      ws.onclose = () => {
        socket = undefined;
        opened = undefined;
        reject(fail({ code: 'NETWORK_ERROR', message: 'The realtime connection closed.' }));
        for (const waiting of pending.values()) {
          waiting.reject(
            fail({ code: 'NETWORK_ERROR', message: 'The realtime connection closed.' }),
          );
        }
        pending.clear();
        emit(statuses, 'closed');
        if (closed || joined.size === 0) return;
        const wait = Math.min(max, min * 2 ** attempt++) * (0.5 + Math.random() / 2);
        timer = setTimeout(() => void connect().catch(() => undefined), wait);
      };
    });
    return opened;
  };

  const request = async (frame: Frame): Promise<Frame> => {
    const ws = await connect();
    const ref = String(++refs);
    return new Promise((resolve, reject) => {
      pending.set(ref, { resolve, reject });
      ws.send(JSON.stringify({ ...frame, ref }));
    });
  };

  const rejoin = async (entry: Joined) => {
    try {
      const reply = await request({ ...entry.frame, after: entry.seq });
      const missed = reply.missed as number | null | undefined;
      if (entry.changes)
        emit(gaps, {
          table: String(entry.frame.table),
          subscription: String(entry.frame.id),
          missed: null,
        });
      else if (typeof missed === 'number' && missed > 0)
        emit(gaps, { channel: String(entry.frame.channel), missed });
      settle(entry, reply);
    } catch (error) {
      emit(errors, error as PlatformError);
    }
  };

  const settle = (entry: Joined, reply: Frame) => {
    entry.seq = Math.max(entry.seq, Number(reply.seq ?? 0));
    if (Array.isArray(reply.members)) {
      entry.members = new Map((reply.members as PresenceMember[]).map((m) => [m.key, m]));
      emit(entry.presence, [...entry.members.values()]);
    }
  };

  const receive = (frame: Frame) => {
    if (frame.type === 'reply') {
      const waiting = pending.get(String(frame.ref));
      pending.delete(String(frame.ref));
      if (frame.ok) waiting?.resolve(frame);
      else {
        const error = fail(frame.error);
        if (waiting) waiting.reject(error);
        else emit(errors, error);
      }
      return;
    }
    if (frame.type === 'error') return emit(errors, fail(frame.error));
    const key = frame.type === 'change' ? `t:${String(frame.id)}` : `c:${String(frame.channel)}`;
    const entry = joined.get(key);
    if (!entry) return;
    const seq = Number(frame.seq);
    entry.seq = Math.max(entry.seq, seq);
    if (frame.type === 'change') {
      const { type: _t, id: _i, table: _table, ...change } = frame;
      entry.changes?.(change as never);
    } else if (frame.type === 'broadcast') {
      const meta = { event: String(frame.event), from: frame.from as RealtimeSender, seq };
      for (const name of [meta.event, '*']) {
        for (const listener of entry.events.get(name) ?? [])
          listener([frame.payload as RealtimeJson, meta]);
      }
    } else if (frame.type === 'presence') {
      for (const member of frame.leaves as PresenceMember[]) entry.members.delete(member.key);
      for (const member of frame.joins as PresenceMember[]) entry.members.set(member.key, member);
      emit(entry.presence, [...entry.members.values()]);
    }
  };

  const entryFor = (key: string, frame: Frame, changes?: Joined['changes']): Joined => {
    const entry: Joined = {
      frame,
      seq: 0,
      members: new Map(),
      presence: new Set(),
      events: new Map(),
      ...(changes ? { changes } : {}),
    };
    joined.set(key, entry);
    return entry;
  };

  const leave = async (key: string, frame: Frame) => {
    joined.delete(key);
    if (socket) await request(frame);
  };

  return {
    async channel(name, channelOptions = {}) {
      const key = `c:${name}`;
      const frame: Frame = {
        type: 'join',
        channel: name,
        ...(channelOptions.presence ? { presence: channelOptions.presence } : {}),
      };
      const entry = entryFor(key, frame);
      try {
        settle(entry, await request(frame));
      } catch (error) {
        joined.delete(key);
        throw error;
      }
      const channel: RealtimeChannel = {
        name,
        on: (event, listener) => {
          let set = entry.events.get(event);
          if (!set) {
            set = new Set();
            entry.events.set(event, set);
          }
          return add(set, ([payload, meta]) => listener(payload, meta));
        },
        send: async (event, payload) => {
          const reply = await request({ type: 'broadcast', channel: name, event, payload });
          return { seq: Number(reply.seq) };
        },
        onPresence: (listener) => {
          listener([...entry.members.values()]);
          return add(entry.presence, listener);
        },
        track: async (state) => {
          // Rejoined with the latest state after a reconnect.
          (entry.frame as { presence?: unknown }).presence = state;
          await request({ type: 'track', channel: name, state });
        },
        leave: () => leave(key, { type: 'leave', channel: name }),
      };
      return channel;
    },
    async changes(table, listener, changeOptions = {}) {
      const id = `s${++refs}`;
      const key = `t:${id}`;
      const frame: Frame = {
        type: 'subscribe',
        id,
        table,
        ...(changeOptions.filter ? { filter: changeOptions.filter } : {}),
      };
      const entry = entryFor(key, frame, listener as Joined['changes']);
      try {
        settle(entry, await request(frame));
      } catch (error) {
        joined.delete(key);
        throw error;
      }
      return { unsubscribe: () => leave(key, { type: 'unsubscribe', id }) };
    },
    onGap: (listener) => add(gaps, listener),
    onStatus: (listener) => add(statuses, listener),
    onError: (listener) => add(errors, listener),
    close() {
      closed = true;
      clearTimeout(timer);
      joined.clear();
      socket?.close();
    },
  };
}
