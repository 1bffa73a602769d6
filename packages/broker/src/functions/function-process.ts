import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import {
  HOST_ADDRESS,
  HOST_PORT_ENV,
  HOST_READY_PREFIX,
  HOST_TOKEN_ENV,
} from '@platform/schema/contract';
import { Pool } from 'undici';
import { denoPath, denoRunArgs } from './deno.ts';
import { freePort } from './free-port.ts';
import { HostAnswer } from './host-answer.ts';
import { readLines } from './line-reader.ts';
import { isOutOfMemoryLine, memoryLimitMb, watchMemory } from './memory-limit.ts';

/** How to run one Function bundle. */
export interface FunctionProcessOptions {
  /** The Function's name, for messages and log prefixes. */
  readonly name: string;
  /** The bundled JavaScript file (self-contained ESM). */
  readonly bundlePath: string;
  /** The broker's port on 127.0.0.1, the only other address the Function may reach. */
  readonly brokerPort: number;
  /**
   * Further hosts the Function may reach (`host` or `host:port`), besides the broker.
   * @default none
   */
  readonly allowNet?: readonly string[] | undefined;
  /** How long a start may take before it counts as failed. @default 10000 */
  readonly startTimeoutMs?: number;
  /** Where Deno keeps its own cache (`DENO_DIR`). @default Deno's default */
  readonly denoDir?: string | undefined;
  /**
   * The process's memory limit in megabytes, for its JavaScript heap and its resident memory;
   * past it the process is killed and restarted. @default `PLATFORM_FUNCTION_MEMORY_MB`, else 512
   */
  readonly memoryMb?: number | undefined;
  /**
   * The app folder as a `file:` URL ending in `/`: cut from every line the process prints (and
   * from the error output a failed start reports), so Deno's own reports, such as an error
   * thrown while the module loads, name files as `functions/foo.ts:3:9`. @default none
   */
  readonly appUrl?: string | undefined;
  /**
   * Stops the process once no call has been in flight for this many milliseconds; the next call
   * starts it again, so an app's idle Functions hold no memory. @default never
   */
  readonly idleStopMs?: number | undefined;
  /** Receives every line the process prints (besides the readiness line). */
  readonly onOutput?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Called when the process exits without being asked to. */
  readonly onCrash?: (info: {
    code: number | null;
    signal: string | null;
    /** The process was stopped for exceeding its memory limit. */
    outOfMemory: boolean;
  }) => void;
}

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

/** Lines kept from stderr to explain a failed start. */
const STDERR_TAIL = 20;

/** The longest stderr line kept for that explanation, in characters. */
const STDERR_TAIL_LINE = 1000;

/**
 * One Function running in its own Deno subprocess with least privilege (see `denoRunArgs`).
 * It starts on first use, is restarted with a growing delay after a crash, is killed and
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
  readonly #stderr: string[] = [];
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
        this.#kill(child);
        await exitOf(child, 2000);
        throw new PlatformError({
          code: 'FUNCTION_TIMEOUT',
          message: `Function "${this.name}" did not finish within ${request.timeoutMs} ms.`,
          details: { function: this.name, timeoutMs: request.timeoutMs },
        });
      }
      if (request.signal?.aborted)
        throw new PlatformError({ code: 'ABORTED', message: 'The call was aborted.' });
      // The connection usually breaks a moment before the exit is reported: wait for it, so the
      // next call already sees the process gone and starts a new one.
      const exited = await exitOf(child, 500);
      if (this.#outOfMemory.has(child) || (exited && (await this.#diedOfMemory(child)))) {
        throw new PlatformError({
          code: 'FUNCTION_FAILED',
          message: `Function "${this.name}" exceeded its memory limit of ${this.memoryMb} MB; it is being restarted.`,
          details: { function: this.name, memoryMb: this.memoryMb },
          cause: error,
        });
      }
      if (this.#killedForTimeout.has(child)) {
        // This call did nothing wrong: it shared the process with one that hung. Sent again, it
        // reaches the fresh process.
        throw new PlatformError({
          code: 'FUNCTION_UNAVAILABLE',
          message: `Function "${this.name}" was restarted because another call exceeded its time limit; try again.`,
          details: { function: this.name },
          cause: error,
        });
      }
      throw new PlatformError({
        code: 'FUNCTION_FAILED',
        message: exited
          ? `Function "${this.name}" crashed during the call; it is being restarted.`
          : `Function "${this.name}" could not be reached.`,
        details: { function: this.name },
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
        const taken = this.#stderr.some((line) => line.includes('AddrInUse'));
        if (!taken || attempt === PORT_ATTEMPTS) throw error;
      }
    }
  }

  async #spawn(port: number): Promise<void> {
    this.#token = randomBytes(24).toString('base64url');
    const started = performance.now();
    const env: Record<string, string> = {
      [HOST_PORT_ENV]: String(port),
      [HOST_TOKEN_ENV]: this.#token,
      NO_COLOR: '1',
    };
    if (this.#options.denoDir) env.DENO_DIR = this.#options.denoDir;
    if (process.env.HOME) env.HOME = process.env.HOME;
    const child = spawn(
      denoPath(),
      denoRunArgs(
        this.#options.bundlePath,
        this.#options.brokerPort,
        port,
        this.memoryMb,
        this.#options.allowNet,
      ),
      {
        env,
        // stdin stays open and unused: the host exits when it closes, so a broker that dies
        // (even by SIGKILL) leaves no orphan. Its own process group keeps a terminal's Ctrl-C
        // away from it; the broker stops it in order on SIGINT instead.
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      },
    );
    this.#child = child;
    this.#stderr.length = 0;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          unavailable(this.name, `it did not start within ${this.#startTimeout} ms`, this.#stderr),
        );
      }, this.#startTimeout);
      readLines(child.stdout!, (printed) => {
        const line = this.#shorten(printed);
        if (line.startsWith(HOST_READY_PREFIX)) {
          clearTimeout(timer);
          resolve();
        } else this.#options.onOutput?.(line, 'stdout');
      });
      readLines(child.stderr!, (printed) => {
        const line = this.#shorten(printed);
        if (isOutOfMemoryLine(line)) this.#outOfMemory.add(child);
        this.#stderr.push(
          line.length > STDERR_TAIL_LINE ? `${line.slice(0, STDERR_TAIL_LINE)} …` : line,
        );
        if (this.#stderr.length > STDERR_TAIL) this.#stderr.shift();
        this.#options.onOutput?.(line, 'stderr');
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(unavailable(this.name, error.message));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          unavailable(
            this.name,
            `it exited during start (${signal ?? `code ${code}`})`,
            this.#stderr,
          ),
        );
      });
    });
    const stopWatching = watchMemory(child.pid ?? 0, this.memoryMb, () => {
      this.#outOfMemory.add(child);
      this.#kill(child);
    });
    child.once('exit', (code, signal) => {
      stopWatching();
      this.#onExit(child, code, signal);
    });
    try {
      await ready;
    } catch (error) {
      this.#kill(child);
      throw error;
    }
    this.lastStartMs = Math.round(performance.now() - started);
    this.#pool = new Pool(`http://${HOST_ADDRESS}:${port}`, { connections: 32, pipelining: 1 });
    // A process started again after a crash with no call waiting stops when idle too.
    this.#idleLater();
  }

  #shorten(line: string): string {
    const appUrl = this.#options.appUrl;
    return appUrl ? line.replaceAll(appUrl, '') : line;
  }

  get #startTimeout(): number {
    return this.#options.startTimeoutMs ?? 10_000;
  }

  /**
   * True when `child`'s error output says V8 reached the heap limit. That output may arrive a
   * moment after the exit: wait until its pipes have closed (briefly) before deciding.
   */
  async #diedOfMemory(child: ChildProcess): Promise<boolean> {
    if (!child.stderr?.closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        child.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.#outOfMemory.has(child);
  }

  #kill(child: ChildProcess): void {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
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

/** Asks `child` to exit (SIGTERM), then SIGKILL after `graceMs`; resolves once it has exited. */
function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Resolves `true` once `child` has exited, or `false` after `ms`. */
function exitOf(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function unavailable(name: string, reason: string, stderr: readonly string[] = []): PlatformError {
  const tail = stderr.length > 0 ? `\n${stderr.join('\n')}` : '';
  return new PlatformError({
    code: 'FUNCTION_UNAVAILABLE',
    message: `Function "${name}" could not be started: ${reason}.${tail}`,
    details: { function: name },
  });
}
