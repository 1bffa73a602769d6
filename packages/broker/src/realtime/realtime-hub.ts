import { randomUUID } from 'node:crypto';
import { encodeError, type JsonValue, PlatformError, toPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { matchRealtimeChannel, type RealtimeChannelRule } from '@platform/schema/contract';
import { readWhere } from '../data/data-input.ts';
import type { DataService } from '../data/data-service.ts';
import type { Where } from '../data/sql.ts';
import type { Database } from '../db/database.ts';
import type { Caller } from '../kernel/caller.ts';
import type { BusMessage, RealtimeBus } from './realtime-bus.ts';
import { type ClientFrame, checkMessageSize, readClientFrame } from './realtime-frames.ts';
import { RowVisibility } from './realtime-visibility.ts';

/** `realtime` of platform.yaml as the broker uses it. */
export interface RealtimeSettings {
  readonly channels: Readonly<Record<string, RealtimeChannelRule>>;
  readonly tables: readonly string[];
}

/** The socket under a connection (a `ws` WebSocket). */
export interface RealtimeSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Sends a ping; `alive` turns false until the pong. */
  ping(): void;
  /** Drops the connection without a closing handshake. */
  terminate(): void;
}

/** Close codes the broker uses (4000-4999 are the application's, RFC 6455 7.4.2). */
export const closeCodes = {
  /** The session ended or the credential no longer admits the caller: sign in again. */
  authEnded: 4401,
  /** `REALTIME_TOO_MANY_CONNECTIONS`. */
  tooManyConnections: 4429,
  /** The broker is stopping: reconnect. */
  goingAway: 1001,
} as const;

/** One member of a channel's presence, as clients receive it. */
interface Member {
  readonly key: string;
  readonly user: string | null;
  readonly state: Record<string, JsonValue>;
}

interface Subscription {
  readonly id: string;
  readonly table: string;
  readonly where: Where;
  readonly connection: Connection;
}

/** One client's socket and what it joined. */
class Connection {
  readonly id = randomUUID();
  readonly channels = new Set<string>();
  /** Channels this connection is present on: the presence key of each. */
  readonly presence = new Map<string, string>();
  readonly subscriptions = new Map<string, Subscription>();
  alive = true;
  closed = false;
  #windowStart = 0;
  #inWindow = 0;

  readonly socket: RealtimeSocket;
  readonly caller: Caller;
  /** Who the connection's credential admits now (throws or differs once the session ended). */
  readonly recheck: () => Promise<Caller>;

  constructor(socket: RealtimeSocket, caller: Caller, recheck: () => Promise<Caller>) {
    this.socket = socket;
    this.caller = caller;
    this.recheck = recheck;
  }

  get holds(): number {
    return this.channels.size + this.subscriptions.size;
  }

  /** Counts a frame; false once more than `messagesPerSecond` arrived in this second. */
  admitFrame(now: number): boolean {
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#inWindow = 0;
    }
    this.#inWindow += 1;
    return this.#inWindow <= limits.realtime.messagesPerSecond;
  }

  send(frame: Record<string, unknown>): void {
    this.sendText(JSON.stringify(frame));
  }

  sendText(text: string): void {
    if (!this.closed) this.socket.send(text);
  }
}

const sameCaller = (a: Caller, b: Caller): boolean =>
  a.kind === b.kind &&
  (a.kind !== 'user' || (b.kind === 'user' && a.userId === b.userId)) &&
  (a.kind !== 'system' || (b.kind === 'system' && a.connectionId === b.connectionId));

const callerKey = (caller: Caller): string =>
  caller.kind === 'user' ? `u:${caller.userId}` : caller.kind;

/**
 * The realtime side of one broker: its connections, the channels they joined, their presence
 * and table subscriptions, and the delivery of each bus message to the connections that may
 * have it. Messages travel through the {@link RealtimeBus}, so a message sent through any
 * broker of the database reaches each subscriber once, through the broker that holds its socket.
 */
export class RealtimeHub {
  readonly #db: Database;
  readonly #data: DataService;
  readonly #bus: RealtimeBus;
  readonly #settings: RealtimeSettings;
  readonly #visibility: RowVisibility;
  /** This broker's id in `realtime_presence`. */
  readonly #brokerId = randomUUID();
  readonly #connections = new Set<Connection>();
  readonly #channels = new Map<string, Set<Connection>>();
  readonly #tables = new Map<string, Set<Subscription>>();
  readonly #perUser = new Map<string, number>();
  /** Row changes are judged one after another, so each subscriber gets them in order. */
  #changes: Promise<void> = Promise.resolve();
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(db: Database, data: DataService, bus: RealtimeBus, settings: RealtimeSettings) {
    this.#db = db;
    this.#data = data;
    this.#bus = bus;
    this.#settings = settings;
    this.#visibility = new RowVisibility(db);
  }

  /** Starts the timers: pings, credential checks, presence freshness, message retention. */
  startTimers(): void {
    const r = limits.realtime;
    const every = (seconds: number, fn: () => Promise<void> | void) => {
      const timer = setInterval(() => {
        void Promise.resolve()
          .then(fn)
          .catch(() => undefined);
      }, seconds * 1000);
      timer.unref();
      this.#timers.push(timer);
    };
    every(r.pingSeconds, () => this.#ping());
    every(r.recheckSeconds, () => this.recheckAll());
    every(r.presenceExpirySeconds / 3, () => this.#keepPresence());
    every(60, () => this.#prune());
  }

  /** Delivers one bus message to this broker's connections that may have it. */
  deliver(message: BusMessage): void {
    if (message.kind === 'change') {
      this.#changes = this.#changes.then(() => this.#deliverChange(message)).catch(() => undefined);
      return;
    }
    const members = this.#channels.get(message.channel);
    if (!members || members.size === 0) return;
    const { sender, ...body } = message.body;
    const text = JSON.stringify({
      type: message.kind,
      channel: message.channel,
      seq: message.id,
      ...body,
    });
    for (const connection of members) {
      if (connection.id !== sender) connection.sendText(text);
    }
  }

  /** `ctx.realtime.broadcast` of a Function: any declared channel. */
  async broadcastFromFunction(
    channel: string,
    event: string,
    payload: JsonValue,
  ): Promise<{ seq: number }> {
    this.#rule(channel);
    checkMessageSize({ event, payload });
    const seq = await this.#bus.publish(channel, 'broadcast', {
      event,
      payload,
      from: { kind: 'function' },
    });
    return { seq };
  }

  /**
   * A new socket of `caller`. Refused with `REALTIME_TOO_MANY_CONNECTIONS` beyond the user's
   * connections on this broker. The returned handlers take the socket's frames and its close.
   */
  open(
    socket: RealtimeSocket,
    caller: Caller,
    recheck: () => Promise<Caller>,
  ): { message(text: string): void; pong(): void; close(): void } {
    const connection = new Connection(socket, caller, recheck);
    if (caller.kind === 'user') {
      const count = this.#perUser.get(caller.userId) ?? 0;
      if (count >= limits.realtime.connectionsPerUser) {
        const error = new PlatformError({
          code: 'REALTIME_TOO_MANY_CONNECTIONS',
          message: `This user already has ${count} realtime connections to the app; close one first.`,
          details: { maxConnections: limits.realtime.connectionsPerUser },
        });
        socket.send(JSON.stringify({ type: 'error', ...encodeError(error) }));
        socket.close(closeCodes.tooManyConnections, 'REALTIME_TOO_MANY_CONNECTIONS');
        return { message: () => undefined, pong: () => undefined, close: () => undefined };
      }
      this.#perUser.set(caller.userId, count + 1);
    }
    this.#connections.add(connection);
    // Frames are handled one after another, so a join's reply precedes what the next frame does.
    let queue: Promise<void> = Promise.resolve();
    return {
      message: (text) => {
        queue = queue.then(() => this.#frame(connection, text)).catch(() => undefined);
      },
      pong: () => {
        connection.alive = true;
      },
      close: () => {
        void this.#drop(connection);
      },
    };
  }

  /** Checks every connection's credential again; closes those whose session ended. */
  async recheckAll(): Promise<void> {
    // One check per distinct credential would need the credential itself as a key; a check
    // is one indexed query, and connections are few per broker.
    await Promise.all([...this.#connections].map((connection) => this.#recheck(connection)));
  }

  /** Closes every connection (the broker is stopping) and stops the timers. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    for (const connection of [...this.#connections]) {
      connection.socket.close(closeCodes.goingAway, 'The broker is stopping.');
      await this.#drop(connection).catch(() => undefined);
    }
    await this.#changes;
  }

  async #recheck(connection: Connection): Promise<boolean> {
    let now: Caller | undefined;
    try {
      now = await connection.recheck();
    } catch {
      now = undefined;
    }
    if (now !== undefined && sameCaller(now, connection.caller)) return true;
    const error = new PlatformError({
      code: 'AUTH_REQUIRED',
      message: 'The session of this realtime connection ended. Sign in again.',
    });
    connection.send({ type: 'error', ...encodeError(error) });
    connection.socket.close(closeCodes.authEnded, 'AUTH_REQUIRED');
    await this.#drop(connection);
    return false;
  }

  async #frame(connection: Connection, text: string): Promise<void> {
    if (connection.closed) return;
    const read = readClientFrame(text);
    const ref = read.ref;
    try {
      if (!connection.admitFrame(Date.now())) {
        throw new PlatformError({
          code: 'REALTIME_RATE_LIMITED',
          message: `More than ${limits.realtime.messagesPerSecond} frames in one second; this one was dropped.`,
          details: { messagesPerSecond: limits.realtime.messagesPerSecond },
        });
      }
      const frame = read.frame();
      // A session that ended must not act even once more before the next periodic check.
      if (!(await this.#recheck(connection))) return;
      const result = await this.#handle(connection, frame);
      connection.send({ type: 'reply', ref: frame.ref, ok: true, ...result });
    } catch (error) {
      const failure = toPlatformError(error);
      connection.send({
        type: 'reply',
        ...(ref ? { ref } : {}),
        ok: false,
        ...encodeError(failure),
      });
    }
  }

  #handle(connection: Connection, frame: ClientFrame): Promise<Record<string, unknown>> {
    switch (frame.type) {
      case 'join':
        return this.#join(connection, frame.channel, frame.after, frame.presence);
      case 'leave':
        return this.#leave(connection, frame.channel);
      case 'broadcast':
        return this.#broadcast(connection, frame.channel, frame.event, frame.payload);
      case 'track':
        return this.#track(connection, frame.channel, frame.state);
      case 'subscribe':
        return this.#subscribe(connection, frame.id, frame.table, frame.filter, frame.after);
      case 'unsubscribe':
        return this.#unsubscribe(connection, frame.id);
    }
  }

  #rule(channel: string): RealtimeChannelRule {
    const rule = matchRealtimeChannel(this.#settings.channels, channel);
    if (rule === undefined) {
      throw new PlatformError({
        code: 'REALTIME_CHANNEL_NOT_DECLARED',
        message: `No realtime.channels entry of platform.yaml matches "${channel}". Declare it (for example "${channel.split(':')[0]}:*").`,
        details: { channel },
      });
    }
    return rule;
  }

  async #join(
    connection: Connection,
    channel: string,
    after: number | undefined,
    presence: Record<string, JsonValue> | undefined,
  ): Promise<Record<string, unknown>> {
    const rule = this.#rule(channel);
    if (rule.join === 'signed-in') requireUser(connection.caller, `join "${channel}"`);
    if (!connection.channels.has(channel)) {
      if (connection.holds >= limits.realtime.channelsPerConnection) throw tooManyChannels();
      connection.channels.add(channel);
      let members = this.#channels.get(channel);
      if (!members) {
        members = new Set();
        this.#channels.set(channel, members);
      }
      members.add(connection);
    }
    if (presence !== undefined) await this.#track(connection, channel, presence);
    const { rows } = await this.#db.query<{ seq: number | null; missed: number | null }>(
      `SELECT (SELECT max(id) FROM platform.realtime_messages WHERE channel = $1) AS seq,
              CASE WHEN $2::bigint IS NULL THEN NULL ELSE
                (SELECT count(*) FROM platform.realtime_messages WHERE channel = $1 AND id > $2::bigint)
              END AS missed`,
      [channel, after ?? null],
    );
    const members = await this.#members(channel);
    return {
      channel,
      seq: Number(rows[0]?.seq ?? 0),
      ...(after === undefined ? {} : { missed: Number(rows[0]?.missed ?? 0) }),
      members,
    };
  }

  async #members(channel: string): Promise<Member[]> {
    const { rows } = await this.#db.query<{
      key: string;
      user_id: string | null;
      state: Member['state'];
    }>(
      `SELECT key, user_id, state FROM platform.realtime_presence
        WHERE channel = $1 AND seen_at > now() - make_interval(secs => $2)
        ORDER BY seen_at, key`,
      [channel, limits.realtime.presenceExpirySeconds],
    );
    return rows.map((row) => ({ key: row.key, user: row.user_id, state: row.state }));
  }

  async #leave(connection: Connection, channel: string): Promise<Record<string, unknown>> {
    await this.#untrack(connection, channel);
    connection.channels.delete(channel);
    const members = this.#channels.get(channel);
    members?.delete(connection);
    if (members?.size === 0) this.#channels.delete(channel);
    return { channel };
  }

  async #broadcast(
    connection: Connection,
    channel: string,
    event: string,
    payload: JsonValue,
  ): Promise<Record<string, unknown>> {
    const rule = this.#rule(channel);
    if (rule.send === 'functions') {
      throw new PlatformError({
        code: 'PERMISSION_DENIED',
        message: `Only the app's Functions may send on "${channel}" (realtime.channels: send: functions).`,
        details: { channel },
      });
    }
    if (rule.send === 'signed-in') requireUser(connection.caller, `send on "${channel}"`);
    if (!connection.channels.has(channel)) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `Join "${channel}" before sending on it.`,
        details: { channel },
      });
    }
    const caller = connection.caller;
    const seq = await this.#bus.publish(channel, 'broadcast', {
      event,
      payload,
      from: caller.kind === 'user' ? { kind: 'user', id: caller.userId } : { kind: caller.kind },
      sender: connection.id,
    });
    return { channel, seq };
  }

  async #track(
    connection: Connection,
    channel: string,
    state: Record<string, JsonValue>,
  ): Promise<Record<string, unknown>> {
    if (!connection.channels.has(channel)) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `Join "${channel}" before sharing presence on it.`,
        details: { channel },
      });
    }
    checkMessageSize(state, limits.realtime.presenceStateMaxBytes);
    const key = connection.presence.get(channel) ?? randomUUID();
    connection.presence.set(channel, key);
    const user = connection.caller.kind === 'user' ? connection.caller.userId : null;
    await this.#db.query(
      `INSERT INTO platform.realtime_presence (key, channel, broker_id, user_id, state)
       VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (key) DO UPDATE SET state = EXCLUDED.state, seen_at = now()`,
      [key, channel, this.#brokerId, user, JSON.stringify(state)],
    );
    const seq = await this.#bus.publish(channel, 'presence', {
      joins: [{ key, user, state }],
      leaves: [],
    });
    return { channel, key, seq };
  }

  async #untrack(connection: Connection, channel: string): Promise<void> {
    const key = connection.presence.get(channel);
    if (key === undefined) return;
    connection.presence.delete(channel);
    const { rows } = await this.#db.query<{ user_id: string | null }>(
      'DELETE FROM platform.realtime_presence WHERE key = $1 RETURNING user_id',
      [key],
    );
    // Already expired by a sweep, which announced the leave itself.
    if (rows.length === 0) return;
    await this.#bus.publish(channel, 'presence', {
      joins: [],
      leaves: [{ key, user: rows[0]?.user_id ?? null }],
    });
  }

  async #subscribe(
    connection: Connection,
    id: string,
    table: string,
    filter: Record<string, string | number | boolean | null> | undefined,
    after: number | undefined,
  ): Promise<Record<string, unknown>> {
    if (!this.#settings.tables.includes(table)) {
      throw new PlatformError({
        code: 'REALTIME_TABLE_NOT_DECLARED',
        message: `The table "${table}" is not listed in realtime.tables of platform.yaml.`,
        details: { table },
      });
    }
    const info = await this.#data.catalog.get(table);
    const where = readWhere(info, filter);
    const existing = connection.subscriptions.get(id);
    if (existing === undefined && connection.holds >= limits.realtime.channelsPerConnection) {
      throw tooManyChannels();
    }
    if (existing) this.#tables.get(existing.table)?.delete(existing);
    const subscription: Subscription = { id, table, where, connection };
    connection.subscriptions.set(id, subscription);
    let set = this.#tables.get(table);
    if (!set) {
      set = new Set();
      this.#tables.set(table, set);
    }
    set.add(subscription);
    const { rows } = await this.#db.query<{ seq: number | null }>(
      'SELECT max(id) AS seq FROM platform.realtime_messages WHERE channel = $1',
      [`table:${table}`],
    );
    // Which of the changes since `after` this subscriber could see is not kept: a resubscription
    // says only that some may have been missed (docs/realtime.md, "Gaps").
    return {
      id,
      table,
      seq: Number(rows[0]?.seq ?? 0),
      ...(after === undefined ? {} : { missed: null }),
    };
  }

  async #unsubscribe(connection: Connection, id: string): Promise<Record<string, unknown>> {
    const subscription = connection.subscriptions.get(id);
    if (subscription) {
      connection.subscriptions.delete(id);
      this.#tables.get(subscription.table)?.delete(subscription);
    }
    return { id };
  }

  async #deliverChange(message: BusMessage): Promise<void> {
    const table = message.channel.slice('table:'.length);
    const subscriptions = this.#tables.get(table);
    if (!subscriptions || subscriptions.size === 0) return;
    const op = message.body.op as 'insert' | 'update' | 'delete';
    const rowId = message.body.id as string | null;
    const old = (message.body.old ?? null) as Record<string, unknown> | null;
    if (rowId === null) return;
    const info = await this.#data.catalog.get(table);
    // Subscribers with the same identity and filter see the same: judged once for all of them.
    const groups = new Map<string, { caller: Caller; where: Where; members: Subscription[] }>();
    for (const subscription of subscriptions) {
      const caller = subscription.connection.caller;
      const key = `${callerKey(caller)}|${JSON.stringify(subscription.where)}`;
      const group = groups.get(key);
      if (group) group.members.push(subscription);
      else groups.set(key, { caller, where: subscription.where, members: [subscription] });
    }
    const viewers = [...groups.values()];
    // One subscriber whose statement fails (a column it may not read) aborts the shared
    // transaction: then each is judged in a transaction of its own, and only its own fails.
    const events = await this.#judge(viewers, info, op, rowId, old).catch(() =>
      Promise.all(
        viewers.map(
          async (viewer) =>
            (await this.#judge([viewer], info, op, rowId, old).catch(() => [undefined]))[0],
        ),
      ),
    );
    viewers.forEach((group, index) => {
      const event = events[index];
      if (event === undefined) return;
      for (const subscription of group.members) {
        const { connection } = subscription;
        if (connection.closed || connection.subscriptions.get(subscription.id) !== subscription) {
          continue;
        }
        connection.send({ type: 'change', id: subscription.id, table, seq: message.id, ...event });
      }
    });
  }

  /**
   * What each group of subscribers receives of one change, in one transaction per question that
   * acts as each subscriber in turn: the row as it is now (insert, update), else, for an update
   * or a delete, whether the subscriber could see the old row (then a delete).
   */
  async #judge(
    viewers: readonly { caller: Caller; where: Where }[],
    info: Awaited<ReturnType<DataService['catalog']['get']>>,
    op: 'insert' | 'update' | 'delete',
    rowId: string,
    old: Record<string, unknown> | null,
  ): Promise<(Record<string, unknown> | undefined)[]> {
    const events: (Record<string, unknown> | undefined)[] = viewers.map(() => undefined);
    const rows =
      op === 'delete'
        ? viewers.map(() => undefined)
        : await this.#visibility.currentMany(viewers, info, rowId);
    rows.forEach((row, index) => {
      if (row !== undefined) events[index] = { op, row };
    });
    // An update that took the row out of a subscriber's sight, or a delete: a delete for a
    // subscriber who could see the row before, and for nobody else.
    if (op === 'insert' || old === null) return events;
    const unseen = viewers.flatMap((_viewer, index) => (rows[index] === undefined ? [index] : []));
    if (unseen.length === 0) return events;
    const before = await this.#visibility.beforeMany(
      unseen.map((index) => viewers[index]!),
      info,
      old,
    );
    unseen.forEach((index, at) => {
      if (before[at]) events[index] = { op: 'delete', old: { id: old.id ?? rowId } };
    });
    return events;
  }

  async #drop(connection: Connection): Promise<void> {
    if (connection.closed) return;
    connection.closed = true;
    this.#connections.delete(connection);
    const caller = connection.caller;
    if (caller.kind === 'user') {
      const left = (this.#perUser.get(caller.userId) ?? 1) - 1;
      if (left <= 0) this.#perUser.delete(caller.userId);
      else this.#perUser.set(caller.userId, left);
    }
    for (const subscription of connection.subscriptions.values()) {
      this.#tables.get(subscription.table)?.delete(subscription);
    }
    connection.subscriptions.clear();
    for (const channel of [...connection.channels]) {
      const members = this.#channels.get(channel);
      members?.delete(connection);
      if (members?.size === 0) this.#channels.delete(channel);
      await this.#untrack(connection, channel).catch(() => undefined);
    }
    connection.channels.clear();
  }

  #ping(): void {
    for (const connection of [...this.#connections]) {
      if (!connection.alive) {
        // No pong since the last ping: the tab or its network is gone.
        connection.socket.terminate();
        void this.#drop(connection);
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }

  /** Keeps this broker's presence fresh and ends that of brokers which stopped refreshing. */
  async #keepPresence(): Promise<void> {
    await this.#db.query(
      'UPDATE platform.realtime_presence SET seen_at = now() WHERE broker_id = $1',
      [this.#brokerId],
    );
    const { rows } = await this.#db.query<{ key: string; channel: string; user_id: string | null }>(
      `DELETE FROM platform.realtime_presence WHERE seen_at < now() - make_interval(secs => $1)
       RETURNING key, channel, user_id`,
      [limits.realtime.presenceExpirySeconds],
    );
    for (const row of rows) {
      await this.#bus.publish(row.channel, 'presence', {
        joins: [],
        leaves: [{ key: row.key, user: row.user_id }],
      });
    }
  }

  async #prune(): Promise<void> {
    await this.#db.query(
      'DELETE FROM platform.realtime_messages WHERE created_at < now() - make_interval(secs => $1)',
      [limits.realtime.retentionSeconds],
    );
  }
}

function requireUser(caller: Caller, what: string): void {
  if (caller.kind !== 'user') {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: `Sign in to ${what}: the channel is for signed-in users (realtime.channels).`,
    });
  }
}

function tooManyChannels(): PlatformError {
  return new PlatformError({
    code: 'REALTIME_TOO_MANY_CHANNELS',
    message: `A connection holds at most ${limits.realtime.channelsPerConnection} channels and table subscriptions; leave one first.`,
    details: { maxChannels: limits.realtime.channelsPerConnection },
  });
}
