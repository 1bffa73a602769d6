import WebSocket from 'ws';

/** A frame the broker sent. */
export type Frame = Record<string, unknown> & { type: string };

/**
 * A raw realtime connection for tests (the `ws` client, which can send the test identity's
 * header): collects every frame, sends frames with a `ref` and awaits their replies.
 */
export class TestSocket {
  readonly frames: Frame[] = [];
  readonly ws: WebSocket;
  #next = 1;
  #waiters: { test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }[] = [];
  closed: { code: number; reason: string } | undefined;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      this.frames.push(frame);
      for (const waiter of [...this.#waiters]) {
        if (waiter.test(frame)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
    });
  }

  /** Opens a socket to `url` (the broker's), as `user` (the test identity) or anonymously. */
  static open(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/_platform/api/realtime`, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new TestSocket(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
    });
  }

  /** Sends a frame with a new `ref` and resolves to its reply. */
  request(frame: Record<string, unknown>): Promise<Frame> {
    const ref = String(this.#next++);
    const reply = this.waitFor((f) => f.type === 'reply' && f.ref === ref);
    this.ws.send(JSON.stringify({ ...frame, ref }));
    return reply;
  }

  /** The first frame (already received or still to come) that passes `test`. */
  waitFor(test: (frame: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    const seen = this.frames.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.resolve !== done);
        reject(
          new Error(`No matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`),
        );
      }, timeoutMs);
      const done = (frame: Frame) => {
        clearTimeout(timer);
        resolve(frame);
      };
      this.#waiters.push({ test, resolve: done });
    });
  }

  /** The frames of `type` received so far. */
  of(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Notes: each visible to its owner, and to everyone signed in while `shared`. */
export const notesMigration = `
create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  title text not null,
  shared boolean not null default false,
  list text not null default 'inbox'
);
alter table notes enable row level security;
create policy notes_read on notes for select to authenticated
  using (owner_id = (select auth.uid()) or shared);
create policy notes_write on notes for all to authenticated
  using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));
create table secrets_kept (id uuid primary key default gen_random_uuid(), note text);
`;
