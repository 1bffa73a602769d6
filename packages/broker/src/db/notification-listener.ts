import type { Client } from 'pg';

type OnNotify = (payload: string) => void;

const quoted = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

/**
 * Every `LISTEN` of one database on one connection of its own, outside the pool (a pooled
 * connection would carry a `LISTEN` to whoever takes it next). A node listening on several
 * channels of one database so holds one connection, not one per channel. A lost connection is
 * opened again after a second and listens on every channel again; the notifications sent
 * meanwhile are lost, as PostgreSQL keeps none for a session that is gone.
 */
export class NotificationListener {
  readonly #open: () => Client;
  readonly #channels = new Map<string, Set<OnNotify>>();
  #client: Client | undefined;
  /** The connection being opened, which every caller waiting for one shares. */
  #connecting: Promise<Client> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  /** `open` makes a connection (not yet connected) to the database. */
  constructor(open: () => Client) {
    this.#open = open;
  }

  /**
   * Calls `onNotify` with the payload of every notification on `channel`. Resolves once the
   * connection listens on it, to a function that stops; rejects when the first connection
   * cannot be opened (a later loss is repaired in the background).
   */
  async listen(channel: string, onNotify: OnNotify): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('The database is closed.');
    let handlers = this.#channels.get(channel);
    const first = handlers === undefined;
    handlers ??= new Set();
    this.#channels.set(channel, handlers);
    handlers.add(onNotify);
    try {
      if (first) {
        // A connection still being opened listens on every channel once it is up.
        const client = this.#client ?? (await this.#connect());
        if (this.#client === client) await client.query(`LISTEN ${quoted(channel)}`);
      } else if (!this.#client) {
        await this.#connect();
      }
    } catch (error) {
      this.#drop(channel, onNotify);
      throw error;
    }
    return async () => {
      if (!this.#drop(channel, onNotify)) return;
      const client = this.#client;
      if (this.#channels.size === 0) {
        this.#client = undefined;
        clearTimeout(this.#retry);
        await client?.end().catch(() => undefined);
      } else {
        await client?.query(`UNLISTEN ${quoted(channel)}`).catch(() => undefined);
      }
    };
  }

  /** Ends the connection; every listening stops. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  // Removes one handler; answers whether that emptied its channel.
  #drop(channel: string, onNotify: OnNotify): boolean {
    const handlers = this.#channels.get(channel);
    if (!handlers?.delete(onNotify) || handlers.size > 0) return false;
    this.#channels.delete(channel);
    return true;
  }

  #connect(): Promise<Client> {
    this.#connecting ??= (async () => {
      const next = this.#open();
      next.on('notification', (message) => {
        for (const handler of [...(this.#channels.get(message.channel) ?? [])])
          handler(message.payload ?? '');
      });
      next.on('error', () => {
        if (this.#client !== next) return;
        this.#client = undefined;
        void next.end().catch(() => undefined);
        this.#again();
      });
      try {
        await next.connect();
        for (const channel of this.#channels.keys()) await next.query(`LISTEN ${quoted(channel)}`);
      } catch (error) {
        await next.end().catch(() => undefined);
        throw error;
      }
      if (this.#closed || this.#channels.size === 0) {
        await next.end();
      } else {
        this.#client = next;
      }
      return next;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  // Tried again every second until it listens again (or nobody listens any more).
  #again(): void {
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => {
      if (this.#closed || this.#channels.size === 0 || this.#client) return;
      this.#connect().catch(() => this.#again());
    }, 1000);
  }
}
