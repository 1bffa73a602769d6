import type { PlatformError } from '@platform/errors';

/** A JSON value as a broadcast carries it. */
export type RealtimeJson =
  | string
  | number
  | boolean
  | null
  | readonly RealtimeJson[]
  | { readonly [key: string]: RealtimeJson };

/** Options of {@link createRealtime}. */
export interface RealtimeOptions {
  /** The app's address. @default the page's origin */
  readonly appUrl?: string;
  /** The first wait before reconnecting, doubled after each failure. @default 500 */
  readonly minReconnectMs?: number;
  /** The longest wait between reconnects. @default 30000 */
  readonly maxReconnectMs?: number;
  /** The WebSocket class (tests). @default globalThis.WebSocket */
  readonly WebSocket?: typeof WebSocket;
}

/** Who sent a broadcast. */
export type RealtimeSender =
  | { readonly kind: 'user'; readonly id: string }
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'function' };

/** One member of a channel's presence. */
export interface PresenceMember {
  /** One per connection and channel: a user with two tabs is two members. */
  readonly key: string;
  /** The user's id; `null` for a visitor without a session. */
  readonly user: string | null;
  readonly state: Readonly<Record<string, RealtimeJson>>;
}

/**
 * Messages that may have been missed while the connection was down. For a channel, `missed` is
 * the number of its messages sent meanwhile; for a table subscription it is `null` (unknown):
 * read the rows again.
 */
export type RealtimeGap =
  | { readonly channel: string; readonly missed: number }
  | { readonly table: string; readonly subscription: string; readonly missed: null };

/** A change of a subscribed table, as the subscriber may see it. */
export type RowChange<Row = Record<string, RealtimeJson>> =
  | { readonly op: 'insert' | 'update'; readonly row: Row; readonly seq: number }
  /** Deleted, or no longer visible to this user (or outside the filter): only its id. */
  | { readonly op: 'delete'; readonly old: { readonly id: string }; readonly seq: number };

/** A joined channel. */
export interface RealtimeChannel {
  readonly name: string;
  /** Calls `listener` with each broadcast of `event` (or of every event with `*`). */
  on(
    event: string,
    listener: (
      payload: RealtimeJson,
      meta: { event: string; from: RealtimeSender; seq: number },
    ) => void,
  ): () => void;
  /** Sends a broadcast to the channel's other members; resolves to its sequence number. */
  send(event: string, payload: RealtimeJson): Promise<{ seq: number }>;
  /** Calls `listener` with every member now and after each join, leave or state change. */
  onPresence(listener: (members: readonly PresenceMember[]) => void): () => void;
  /** Shares (or replaces) this connection's presence state on the channel. */
  track(state: Readonly<Record<string, RealtimeJson>>): Promise<void>;
  /** Leaves the channel (and its presence). */
  leave(): Promise<void>;
}

/** A table subscription. */
export interface RealtimeSubscription {
  unsubscribe(): Promise<void>;
}

/** The connection state {@link PlatformRealtime.onStatus} reports. */
export type RealtimeStatus = 'connecting' | 'open' | 'closed';

/** The realtime client of one app: one WebSocket shared by every channel and subscription. */
export interface PlatformRealtime {
  /** Joins `name` (with presence `state`, if given); resolves once the broker accepted. */
  channel(
    name: string,
    options?: { readonly presence?: Readonly<Record<string, RealtimeJson>> },
  ): Promise<RealtimeChannel>;
  /** Subscribes to a table of `realtime.tables`, optionally filtered by column equality. */
  changes<Row = Record<string, RealtimeJson>>(
    table: string,
    listener: (change: RowChange<Row>) => void,
    options?: { readonly filter?: Readonly<Record<string, string | number | boolean | null>> },
  ): Promise<RealtimeSubscription>;
  /** Calls `listener` after a reconnect for each channel or subscription that may have missed messages. */
  onGap(listener: (gap: RealtimeGap) => void): () => void;
  onStatus(listener: (status: RealtimeStatus) => void): () => void;
  /** Calls `listener` with errors nobody awaits (a rejoin refused after a reconnect). */
  onError(listener: (error: PlatformError) => void): () => void;
  /** Closes the socket and forgets every channel. */
  close(): void;
}
