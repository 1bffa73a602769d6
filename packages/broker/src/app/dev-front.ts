import { errorResponse, PlatformError } from '@platform/errors';
import { RUNTIME_PREFIX } from '@platform/schema/routes';
import { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { type BrokerListener, listenBroker, type RunningServer } from '../http/serve.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { printable } from '../logs/printable.ts';
import { paint, type Style } from '../logs/terminal-style.ts';

type App = Hono<BrokerEnv>;

/** Which requests {@link DevFront} prints, one line each. */
export interface RequestLog {
  readonly write: LogWriter;
  /** Also the Functions' own calls to the broker (its runtime routes). @default false */
  readonly runtime?: boolean;
}

// The paths that run a Function, and where its name is: a browser's call (and its stream) and
// `platform invoke`.
const FUNCTION_PATHS = [
  /^\/_platform\/api\/functions\/([^/]+)(?:\/stream)?$/,
  /^\/v1\/apps\/[^/]+\/invoke\/([^/]+)$/,
];

/** The Function a request runs, from its path; `undefined` for every other request. */
export function functionOfPath(path: string): string | undefined {
  for (const pattern of FUNCTION_PATHS) {
    const name = pattern.exec(path)?.[1];
    if (name !== undefined) {
      try {
        return decodeURIComponent(name);
      } catch {
        return name;
      }
    }
  }
  return undefined;
}

const statusStyle = (status: number): Style =>
  status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green';

/**
 * One request as `platform dev` prints it: method, path (never the query, which may carry a
 * link's key), status, duration and the Function it ran.
 */
export function requestLine(
  method: string,
  path: string,
  status: number,
  milliseconds: number,
): string {
  const name = functionOfPath(path);
  // The path may hold any character a client sent (decoded Function names too).
  return [
    paint('bold', method),
    printable(path),
    paint(statusStyle(status), String(status)),
    `${Math.round(milliseconds)} ms`,
    ...(name === undefined ? [] : [printable(name)]),
  ].join(' ');
}

const notReady = () =>
  new PlatformError({
    code: 'APP_RESTARTING',
    message: 'The app is starting with a changed platform.yaml; try again in a moment.',
  });

/**
 * The port of one `platform dev`, bound once for its whole life, in front of whichever broker
 * serves the current platform.yaml. A restart therefore never refuses a connection: from
 * {@link DevFront.pause} until the new broker is {@link DevFront.activate}d (its Functions
 * started), requests answer the retryable `APP_RESTARTING` (503, `Retry-After: 1`), except the
 * runtime routes of the broker being started, which its Functions and jobs may already call.
 * Requests the old broker was answering when the restart began are let finish before it closes.
 *
 * @example
 * ```ts
 * const front = await DevFront.listen(4310);
 * const broker = await startBroker({ ...options, listener: front.next() });
 * front.activate(broker.app);
 * ```
 */
export class DevFront {
  readonly #server: RunningServer;
  readonly #front: App;
  /** The broker that answers the app's requests; none while (re)starting. */
  #active: App | undefined;
  /** The broker most recently built: its Functions reach their runtime routes through it. */
  #newest: App | undefined;
  /** Requests the active broker is answering (runtime routes aside). */
  #inFlight = 0;
  readonly #drained: (() => void)[] = [];

  private constructor(listener: BrokerListener, log: RequestLog | undefined) {
    const front: App = new Hono<BrokerEnv>();
    if (log) {
      front.use(async (c, next) => {
        const started = performance.now();
        await next();
        if (!log.runtime && c.req.path.startsWith(`${RUNTIME_PREFIX}/`)) return;
        log.write(requestLine(c.req.method, c.req.path, c.res.status, performance.now() - started));
      });
    }
    front.all('*', async (c) => {
      if (c.req.path.startsWith(`${RUNTIME_PREFIX}/`) && this.#newest) {
        return this.#newest.fetch(c.req.raw, c.env);
      }
      const target = this.#active;
      if (!target) {
        const response = errorResponse(notReady());
        response.headers.set('retry-after', '1');
        return response;
      }
      this.#inFlight++;
      try {
        return await target.fetch(c.req.raw, c.env);
      } finally {
        this.#inFlight--;
        if (this.#inFlight === 0) for (const wake of this.#drained.splice(0)) wake();
      }
    });
    this.#front = front;
    this.#server = listener.serve(front);
  }

  /**
   * Answers `request` as a request on this port would be answered (the organisation's
   * `{base_url}` forwards an app's owner API calls here), restarts included.
   */
  fetch(request: Request, env?: Parameters<App['fetch']>[1]): Promise<Response> {
    return Promise.resolve(this.#front.fetch(request, env));
  }

  /** Binds `port` on 127.0.0.1 (`0`: a free one); `log` prints each request answered. */
  static async listen(port: number, log?: RequestLog): Promise<DevFront> {
    return new DevFront(await listenBroker({ port }), log);
  }

  get port(): number {
    return this.#server.port;
  }

  /** `http://localhost:<port>`. */
  get url(): string {
    return this.#server.url;
  }

  /**
   * The bound port as the next broker's listener (`startBroker`'s `listener`): serving hands the
   * front that broker's app for its runtime routes only; closing it detaches that app.
   */
  next(): BrokerListener {
    let mine: App | undefined;
    const running: RunningServer = {
      port: this.port,
      url: this.url,
      close: async () => {
        if (this.#active === mine) this.#active = undefined;
        if (this.#newest === mine) this.#newest = undefined;
      },
    };
    return {
      ...running,
      serve: (app) => {
        mine = app;
        this.#newest = app;
        return running;
      },
    };
  }

  /** Sends the app's requests to `app`, a broker whose Functions have started. */
  activate(app: App): void {
    this.#newest = app;
    this.#active = app;
  }

  /**
   * Answers `APP_RESTARTING` until the next {@link DevFront.activate} (a restart begins), then
   * waits for the requests the active broker is answering, at most `drainMs`, so that closing it
   * does not cut them off.
   */
  async pause(drainMs = 5_000): Promise<void> {
    this.#active = undefined;
    if (this.#inFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#drained.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Closes the port. */
  close(): Promise<void> {
    return this.#server.close();
  }
}
