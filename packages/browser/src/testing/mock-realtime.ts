import { limits } from '@platform/schema';
import type { PresenceMember, RealtimeJson, RealtimeSender } from '../realtime/types.ts';

type Frame = Record<string, unknown> & { type: string };

/** A test's handle on the simulated realtime broker behind {@link MockRealtime.WebSocket}. */
export interface MockRealtime {
  /** Pass as `createRealtime({ WebSocket })`. */
  readonly WebSocket: typeof WebSocket;
  /** Every frame the client sent, in order (its `ref`s included). */
  readonly sent: readonly Frame[];
  /** Channels and table subscriptions the client holds now. */
  readonly joined: ReadonlySet<string>;
  /** Delivers a broadcast on `channel`, as from a Function unless `from` says otherwise. */
  broadcast(channel: string, event: string, payload: unknown, from?: RealtimeSender): void;
  /** Delivers presence joins and leaves on `channel`. */
  presence(
    channel: string,
    change: { joins?: readonly PresenceMember[]; leaves?: readonly PresenceMember[] },
  ): void;
  /** Delivers a row change to the subscription of `table`. */
  change(
    table: string,
    change:
      | { op: 'insert' | 'update'; row: Readonly<Record<string, RealtimeJson>> }
      | { op: 'delete'; old: { id: string } },
  ): void;
  /**
   * Cuts the connection, as a network loss would. Messages sent with `broadcast` while it is down
   * are counted: the client's rejoin is told it missed them, as the broker tells it.
   */
  drop(): void;
  /** Refuses the next frame of `type` with this error (`{ code, message }`). */
  refuseNext(type: string, error: { code: string; message: string }): void;
}

/**
 * A simulated realtime broker for tests of pages that use `@platform/browser/realtime`: it
 * answers joins, subscriptions, broadcasts and presence as the broker does (sequence numbers,
 * the message size limit, gap counts after a reconnect), and lets the test deliver incoming
 * messages. No network.
 *
 * @example
 * ```ts
 * const mock = createMockRealtime();
 * const realtime = createRealtime({ appUrl: 'http://app.test', WebSocket: mock.WebSocket });
 * const room = await realtime.channel('room:1');
 * room.on('moved', (payload) => seen.push(payload));
 * mock.broadcast('room:1', 'moved', { x: 1 });
 * ```
 */
export function createMockRealtime(): MockRealtime {
  const sent: Frame[] = [];
  const joined = new Set<string>();
  const subscriptions = new Map<string, string>();
  const refusals = new Map<string, { code: string; message: string }>();
  const log: { channel: string; seq: number }[] = [];
  let seq = 0;
  let current: FakeSocket | undefined;

  const deliver = (frame: Frame) => current?.receive(frame);

  /** The broker's reply to one frame, as the real broker answers it. */
  const answer = (frame: Frame, text: string): Record<string, unknown> => {
    const refusal = refusals.get(frame.type);
    if (refusal) {
      refusals.delete(frame.type);
      return { ok: false, error: { ...refusal, retryable: false } };
    }
    if (text.length > limits.realtime.messageMaxBytes) {
      return {
        ok: false,
        error: {
          code: 'REALTIME_MESSAGE_TOO_LARGE',
          message: 'The frame is too large.',
          retryable: false,
        },
      };
    }
    const channel = String(frame.channel ?? '');
    const after = typeof frame.after === 'number' ? frame.after : undefined;
    const missedOn = (name: string) =>
      log.filter((m) => m.channel === name && m.seq > (after ?? 0)).length;
    switch (frame.type) {
      case 'join':
        joined.add(`channel:${channel}`);
        return {
          ok: true,
          channel,
          seq,
          members: [],
          ...(after === undefined ? {} : { missed: missedOn(channel) }),
        };
      case 'leave':
        joined.delete(`channel:${channel}`);
        return { ok: true, channel };
      case 'subscribe':
        joined.add(`table:${String(frame.table)}`);
        subscriptions.set(String(frame.table), String(frame.id));
        return {
          ok: true,
          id: frame.id,
          seq,
          ...(after === undefined ? {} : { missed: null }),
        };
      case 'unsubscribe':
        for (const [table, id] of subscriptions) {
          if (id === frame.id) {
            subscriptions.delete(table);
            joined.delete(`table:${table}`);
          }
        }
        return { ok: true, id: frame.id };
      case 'broadcast':
        log.push({ channel, seq: ++seq });
        return { ok: true, channel, seq };
      default:
        return { ok: true, channel, seq };
    }
  };

  class FakeSocket extends EventTarget {
    onopen: ((event: Event) => void) | null = null;
    onmessage: ((event: MessageEvent) => void) | null = null;
    onclose: ((event: CloseEvent | Event) => void) | null = null;
    readyState = 0;
    readonly url: string;

    constructor(url: string) {
      super();
      this.url = url;
      current = this;
      queueMicrotask(() => {
        this.readyState = 1;
        this.onopen?.(new Event('open'));
      });
    }

    receive(frame: Frame): void {
      if (this.readyState === 1)
        this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
    }

    send(text: string): void {
      const frame = JSON.parse(text) as Frame;
      sent.push(frame);
      const body = answer(frame, text);
      queueMicrotask(() => this.receive({ ...body, type: 'reply', ref: frame.ref }));
    }

    close(): void {
      if (this.readyState === 3) return;
      this.readyState = 3;
      if (current === this) current = undefined;
      queueMicrotask(() => this.onclose?.(new Event('close')));
    }
  }

  return {
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    sent,
    joined,
    broadcast(channel, event, payload, from = { kind: 'function' }) {
      log.push({ channel, seq: ++seq });
      deliver({ type: 'broadcast', channel, seq, event, payload, from });
    },
    presence(channel, change) {
      log.push({ channel, seq: ++seq });
      deliver({
        type: 'presence',
        channel,
        seq,
        joins: change.joins ?? [],
        leaves: change.leaves ?? [],
      });
    },
    change(table, change) {
      const id = subscriptions.get(table);
      if (id !== undefined) deliver({ type: 'change', id, table, seq: ++seq, ...change });
    },
    drop() {
      current?.close();
    },
    refuseNext(type, error) {
      refusals.set(type, error);
    },
  };
}
