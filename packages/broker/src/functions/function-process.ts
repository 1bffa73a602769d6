import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { HOST_ADDRESS } from '@platform/schema/contract';
import { hostRoutes } from '@platform/schema/routes';
import { Pool } from 'undici';
import { exitOf, killNow, pipesClosed, terminate } from './child-exit.ts';
import { freePort } from './free-port.ts';
import { brokenCall, callTimedOut, unavailable } from './function-failures.ts';
import type { FunctionProcessOptions } from './function-process-options.ts';
import { HostAnswer } from './host-answer.ts';
import { spawnHost } from './host-spawn.ts';
import { memoryLimitMb, watchMemory } from './memory-limit.ts';
import { StderrTail } from './stderr-tail.ts';

/** One request to the host. */
export interface HostRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** The Function's time limit; on expiry the process is killed and restarted. */
  readonly timeoutMs: number;
  /** Aborts the request (the caller went away). */
  readonly signal?: AbortSignal;
  /**
   * Called once when the exchange is over: the whole answer read (a stream to its end), or the
   * request failed, timed out or was aborted.
   */
  readonly onEnd?: () => void;
}

/** How many ports a start tries when the chosen one was taken before the host bound it. */
const PORT_ATTEMPTS = 5;

/**
 * One Function running in its own Deno subprocess with least privilege (see `denoRunArgs`).
 * It starts on first use (or earlier, by `ready()`), is restarted with a growing delay after a crash, is killed and
 * restarted when a call exceeds its time limit (a hung handler may block the whole process), and
 * with `idleStopMs` stops when idle until the next call. A crash of one Function's process never
 * touches another's.
 *
 * @example
 * ```ts
 * const fn = new FunctionProcess({ name: 'hello', bundlePath, brokerPort: 4310 });
 * const response = await fn.request({ method: 'GET', path: '/_platform/health', timeoutMs: 5000 });
 * await fn.stop();
 * ```
 */
export class FunctionProcess {
  readonly name: string;
  /** How many times a process was started again after a crash or a time limit (not after idling). */
  get restarts(): number {
    return Math.max(0, this.#starts - 1 - this.#resumes);
  }
  /**
   * How many times a process was started for this Function: its first start, restarts and
   * starts after idling.
   */
  get starts(): number {
    return this.#starts;
  }
  #starts = 0;
  /** Starts that followed a stop for idleness. */
  #resumes = 0;
  #idle = false;
  /** Calls whose exchange is not over yet. */
  #inFlight = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  /** The exit of a process stopped for idleness, awaited by `stop()`. */
  #idleExit: Promise<unknown> | undefined;
  /** Milliseconds from spawn to the readiness line, of the latest start. */
  lastStartMs = 0;
  readonly #options: FunctionProcessOptions;
  #child: ChildProcess | undefined;
  #pool: Pool | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;
  #crashes = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  readonly #stderr = new StderrTail();
  /** Processes killed because a call ran past its time limit. */
  readonly #killedForTimeout = new WeakSet<ChildProcess>();
  /** Processes that went past the memory limit. */
  readonly #outOfMemory = new WeakSet<ChildProcess>();
  /** The memory limit in megabytes. */
  readonly memoryMb: number;

  constructor(options: FunctionProcessOptions) {
    this.name = options.name;
    this.#options = options;
    this.memoryMb = memoryLimitMb(options.memoryMb);
  }

  /** The process id while running. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the process unless it runs already; resolves once the host listens. */
  ready(): Promise<void> {
    if (this.#stopped) return Promise.reject(unavailable(this.name, 'the broker is stopping'));
    if (this.#child && this.#pool && !this.#starting) return Promise.resolve();
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * Asks the running host for its health once, so that the connection to it is open and the
   * host's request path has run before the first call, which otherwise pays for both (tens of
   * milliseconds of a Deno process's first answer here). Starts nothing: resolves to false when
   * no process is running or it did not answer 200.
   */
  async warm(): Promise<boolean> {
    const pool = this.#pool;
    if (!pool || this.#starting) return false;
    try {
      const { statusCode, body } = await pool.request({
        method: hostRoutes.health.method,
        path: hostRoutes.health.path,
        headers: { authorization: `Bearer ${this.#token}` },
      });
      await body.dump();
      return statusCode === 200;
    } catch {
      return false;
    }
  }

  /** Sends one request to the host, under the time limit. */
  async request(request: HostRequest): Promise<Response> {
    await this.ready();
    const child = this.#child;
    const pool = this.#pool;
    if (!child || !pool) throw unavailable(this.name, 'the process is not running');
    // One timer for the time limit and one listener on the caller's signal, both removed once
    // the whole answer is read; a streamed answer stays under the limit until it ends.
    let timedOut = false;
    const caller = request.signal;
    this.#inFlight += 1;
    clearTimeout(this.#idleTimer);
    const answer = new HostAnswer(() => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
      this.#inFlight -= 1;
      this.#idleLater();
      request.onEnd?.();
    });
    const onCallerAbort = () => answer.abort(caller?.reason);
    const timer = setTimeout(() => {
      timedOut = true;
      answer.abort(new DOMException('The time limit was reached.', 'TimeoutError'));
    }, request.timeoutMs);
    timer.unref();
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      pool.dispatch(
        {
          method: request.method,
          path: request.path,
          headers: { ...request.headers, authorization: `Bearer ${this.#token}` },
          body: request.body ?? null,
        },
        answer,
      );
      return await answer.response;
    } catch (error) {
      if (timedOut) {
        // A handler past its limit may be stuck in a loop that blocks every other call of this
        // Function: start over with a fresh process.
        this.#killedForTimeout.add(child);
        killNow(child);
        await exitOf(child, 2000);
        throw callTimedOut(this.name, request.timeoutMs);
      }
      if (request.signal?.aborted)
        throw new PlatformError({ code: 'ABORTED', message: 'The call was aborted.' });
      // The connection usually breaks a moment before the exit is reported: wait for it, so the
      // next call already sees the process gone and starts a new one.
      const exited = await exitOf(child, 500);
      const outOfMemory =
        this.#outOfMemory.has(child) || (exited && (await this.#diedOfMemory(child)));
      throw brokenCall({
        name: this.name,
        memoryMb: this.memoryMb,
        outOfMemory,
        killedForTimeout: this.#killedForTimeout.has(child),
        exited,
        cause: error,
      });
    }
  }

  /** Stops the process (SIGTERM, then SIGKILL after `graceMs`) and keeps it stopped. */
  async stop(graceMs = 2000): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restartTimer);
    clearTimeout(this.#idleTimer);
    await this.#starting?.catch(() => undefined);
    await this.#idleExit;
    const child = this.#child;
    if (child) await terminate(child, graceMs);
  }

  /** (Re)arms the idle stop once no call is in flight. */
  #idleLater(): void {
    const idleMs = this.#options.idleStopMs;
    if (idleMs === undefined || this.#inFlight > 0 || this.#stopped) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#stopIdle(), idleMs);
    this.#idleTimer.unref();
  }

  #stopIdle(): void {
    const child = this.#child;
    if (!child || this.#inFlight > 0 || this.#starting || this.#stopped) return;
    // Forgotten at once, so a call arriving while it exits starts a new process instead of
    // reaching this one.
    this.#forget();
    this.#idle = true;
    this.#idleExit = terminate(child, 2000).finally(() => {
      this.#idleExit = undefined;
    });
  }

  #token = '';

  async #start(): Promise<void> {
    this.#starts += 1;
    if (this.#idle) this.#resumes += 1;
    this.#idle = false;
    // The network permission names the host's exact port, so it is chosen before the spawn, and
    // anything on the machine may bind it in between: then the host starts again on another.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#spawn(await freePort());
      } catch (error) {
        const taken = this.#stderr.lines.some((line) => line.includes('AddrInUse'));
        if (!taken || attempt === PORT_ATTEMPTS) throw error;
      }
    }
  }

  async #spawn(port: number): Promise<void> {
    this.#token = randomBytes(24).toString('base64url');
    const started = performance.now();
    const { child, ready } = spawnHost({
      options: this.#options,
      port,
      token: this.#token,
      memoryMb: this.memoryMb,
      stderr: this.#stderr,
      onOutOfMemory: (spawned) => this.#outOfMemory.add(spawned),
    });
    this.#child = child;
    const stopWatching = watchMemory(child.pid ?? 0, this.memoryMb, () => {
      this.#outOfMemory.add(child);
      killNow(child);
    });
    child.once('exit', (code, signal) => {
      stopWatching();
      this.#onExit(child, code, signal);
    });
    try {
      await ready;
    } catch (error) {
      killNow(child);
      throw error;
    }
    this.lastStartMs = Math.round(performance.now() - started);
    this.#pool = new Pool(`http://${HOST_ADDRESS}:${port}`, { connections: 32, pipelining: 1 });
    // A process started again after a crash with no call waiting stops when idle too.
    this.#idleLater();
  }

  /**
   * True when `child`'s error output says V8 reached the heap limit. That output may arrive a
   * moment after the exit: wait until its pipes have closed (briefly) before deciding.
   */
  async #diedOfMemory(child: ChildProcess): Promise<boolean> {
    await pipesClosed(child, 500);
    return this.#outOfMemory.has(child);
  }

  /** Drops the current process and its connection pool; calls after this start a new one. */
  #forget(): void {
    this.#child = undefined;
    void this.#pool?.destroy().catch(() => undefined);
    this.#pool = undefined;
  }

  #onExit(child: ChildProcess, code: number | null, signal: string | null): void {
    if (this.#child !== child) return;
    const wasReady = this.#pool !== undefined;
    this.#forget();
    if (this.#stopped || !wasReady) return;
    this.#options.onCrash?.({ code, signal, outOfMemory: this.#outOfMemory.has(child) });
    // Restart eagerly so the next call does not pay the start, backing off when it keeps dying.
    this.#crashes += 1;
    const delay = Math.min(100 * 2 ** (this.#crashes - 1), 5000);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopped || this.#child) return;
      this.ready().then(
        () => {
          // Up again: a later crash starts the back-off from the beginning.
          setTimeout(() => {
            if (this.#child) this.#crashes = 0;
          }, 10_000).unref();
        },
        () => undefined,
      );
    }, delay);
    this.#restartTimer.unref();
  }
}
