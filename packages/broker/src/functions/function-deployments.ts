import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PlatformError } from '@platform/errors';
import { type FunctionAccess, Redactor } from '@platform/schema/contract';
import type { LogWriter } from '../logs/log-sink.ts';
import { printable } from '../logs/printable.ts';
import type { BundleResult } from './bundler.ts';
import { type BundlePlace, bundleDeclared } from './function-bundles.ts';
import { FunctionProcess } from './function-process.ts';
import type { FunctionInvoker } from './invoker.ts';
import { memoryLimitMb } from './memory-limit.ts';

/** How long a Function's process waits for a call before it stops, unless told otherwise. */
const DEFAULT_IDLE_STOP_MS = 120_000;

/**
 * How many Function processes {@link FunctionDeployments.startAll} starts at once: a Deno start
 * is mostly CPU (loading the bundle), and the machine also serves the developer's first
 * requests meanwhile.
 */
const DEFAULT_START_CONCURRENCY = 2;

/** The message of a failed start, for the log line that reports it. */
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One Function to serve (from platform.yaml `functions[]`). */
export interface FunctionDeclaration {
  readonly name: string;
  /** Relative to the app folder. */
  readonly entrypoint: string;
  readonly access: FunctionAccess;
  /** @default 60000 */
  readonly timeoutMs?: number;
  /**
   * Memory limit of the Function's process in megabytes (JavaScript heap and resident memory);
   * past it the process is restarted and the call fails with `FUNCTION_FAILED` saying so.
   * @default `PLATFORM_FUNCTION_MEMORY_MB` of the broker's environment, else 512
   */
  readonly memoryMb?: number;
}

/**
 * Where and how one broker's Functions are bundled and run; Deno's cache goes to `deno/` of the
 * state folder.
 */
export interface FunctionDeploymentsOptions extends BundlePlace {
  /** The broker's port on 127.0.0.1, the only other address a Function may reach. */
  readonly brokerPort: number;
  /** Further hosts every Function may reach (`host` or `host:port`). @default none */
  readonly allowNet?: readonly string[] | undefined;
  /** Where a started Function is registered, so calls reach it. */
  readonly invoker: FunctionInvoker;
  /** Receives the processes' output and crash notices. */
  readonly print: LogWriter;
  /**
   * How long a Function's process may sit without a call before it stops; the next call starts
   * it again. @default 120000 (two minutes)
   */
  readonly idleStopMs?: number | undefined;
  /**
   * Redacts known secret values from the processes' output before it is printed; each process
   * redacts these and its calls' credential values (see `DeployedFunction.redactor`).
   * @default the calls' credential values only
   */
  readonly redactor?: Redactor | undefined;
}

/** A running version of a Function. */
interface Deployment {
  readonly declaration: FunctionDeclaration;
  readonly process: FunctionProcess;
  /** The files its bundle was built from. */
  readonly inputs: ReadonlySet<string>;
}

/**
 * The Functions one broker runs: each is bundled (reusing an unchanged earlier bundle) and
 * registered with the invoker; its own Deno process starts on its first call and stops after
 * `idleStopMs` without one. A new version of a Function already deployed is started at once and
 * replaces the running one only once it is ready. Owns every process it starts:
 * {@link FunctionDeployments.close} stops them all, those still starting included.
 *
 * @example
 * ```ts
 * const functions = new FunctionDeployments({ appDir, stateDir, sdk, brokerPort, invoker, print });
 * await functions.add({ name: 'listTodos', entrypoint: 'functions/list-todos.ts', access: 'user' });
 * await functions.close();
 * ```
 */
export class FunctionDeployments {
  readonly #options: FunctionDeploymentsOptions;
  readonly #deployed = new Map<string, Deployment>();
  /** Processes whose start is under way, not yet registered. */
  readonly #starting = new Set<FunctionProcess>();
  /** Deployments under way, settled either way. */
  readonly #pending = new Set<Promise<void>>();
  #closed = false;

  constructor(options: FunctionDeploymentsOptions) {
    this.#options = options;
  }

  /**
   * Bundles `fn` and registers it; its process starts on the first call. When a version is
   * deployed already, the new one's process starts now and the old version keeps serving until
   * it is ready, then stops. A bundling failure (naming file and line) or the new version's start
   * failure throws and leaves the deployed version in place. Resolves to the bundle.
   */
  add(fn: FunctionDeclaration): Promise<BundleResult> {
    return this.addAll([fn])[0] as Promise<BundleResult>;
  }

  /**
   * {@link FunctionDeployments.add} for several Functions at once, bundled together where they
   * can be (see `bundleDeclared`). Each settles on its own: one Function that fails to bundle or
   * start leaves the others deployed.
   */
  addAll(fns: readonly FunctionDeclaration[]): Promise<BundleResult>[] {
    if (this.#closed) return fns.map((fn) => Promise.reject(this.#refusal(fn.name)));
    const bundles = bundleDeclared(this.#options, fns);
    return fns.map((fn, index) => {
      const deploying = this.#deploy(fn, bundles[index] as Promise<BundleResult>);
      const settled = deploying.then(
        () => undefined,
        () => undefined,
      );
      this.#pending.add(settled);
      void settled.then(() => this.#pending.delete(settled));
      return deploying;
    });
  }

  /**
   * Registers `fn` with a bundle built already (a deployment's, built by `platform deploy` on
   * the developer's machine): nothing is bundled here. With `start`, its process is started
   * before it is registered, so the first call finds it listening and a Function that cannot
   * start throws here rather than on that call. Otherwise as {@link FunctionDeployments.add}.
   */
  addBundled(
    fn: FunctionDeclaration,
    bundlePath: string,
    options: { readonly start?: boolean } = {},
  ): Promise<BundleResult> {
    if (this.#closed) return Promise.reject(this.#refusal(fn.name));
    const deploying = this.#deploy(
      fn,
      Promise.resolve({ outFile: bundlePath, inputs: [], milliseconds: 0 }),
      options.start === true,
    );
    const settled = deploying.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
    return deploying;
  }

  /** Deploys the running Function `name` again from its declaration (its sources changed). */
  replace(name: string): Promise<BundleResult> {
    const deployment = this.#deployed.get(name);
    if (!deployment) {
      return Promise.reject(
        new PlatformError({
          code: 'FUNCTION_NOT_FOUND',
          message: `No Function named "${name}" is deployed.`,
          details: { name },
        }),
      );
    }
    return this.add(deployment.declaration);
  }

  /**
   * Starts the process of every deployed Function that is not running, `concurrency` at a time
   * in declaration order, so that each Function's first call finds its process listening
   * instead of waiting for a Deno start and the load of its bundle, with a connection open and
   * warmed by one health request (see `FunctionProcess.warm`). A call that comes first
   * joins the start under way rather than beginning another. A Function that cannot start is
   * reported through `print` and tried again by its next call; a started process that gets no
   * call stops after the idle time, as any other. Resolves once every start has settled; never
   * rejects.
   */
  async startAll(concurrency = DEFAULT_START_CONCURRENCY): Promise<void> {
    const queue = [...this.#deployed.values()];
    const next = async (): Promise<void> => {
      for (let deployment = queue.shift(); deployment; deployment = queue.shift()) {
        const { declaration, process } = deployment;
        if (this.#closed) return;
        // Replaced or removed meanwhile: the new version was started by its own deployment.
        if (this.#deployed.get(declaration.name) !== deployment) continue;
        if (process.pid !== undefined) continue;
        try {
          await process.ready();
          await process.warm();
        } catch (error) {
          if (!this.#closed) this.#reportFailedStart(declaration.name, error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, next));
  }

  /** Names of the deployed Functions whose bundle was built from any of `paths` (absolute). */
  changedBy(paths: Iterable<string>): string[] {
    const changed = [...paths];
    return [...this.#deployed.values()]
      .filter(({ inputs }) => changed.some((path) => inputs.has(path)))
      .map(({ declaration }) => declaration.name);
  }

  /** Unregisters `name` and stops its process; nothing happens when it is not deployed. */
  async remove(name: string): Promise<void> {
    const deployment = this.#deployed.get(name);
    if (!deployment) return;
    this.#deployed.delete(name);
    if (this.#options.invoker.get(name)?.process === deployment.process) {
      this.#options.invoker.unregister(name);
    }
    await deployment.process.stop();
  }

  /**
   * Stops every process, those still starting included, and refuses later deployments.
   * Resolves once no process of these Functions runs.
   */
  async close(): Promise<void> {
    this.#closed = true;
    // A start under way is cut short now instead of finishing first; its deployment then sees
    // the registry closed and stops (the process already is).
    await Promise.all([...this.#starting].map((process) => process.stop()));
    await Promise.all(this.#pending);
    await Promise.all([...this.#deployed.keys()].map((name) => this.remove(name)));
  }

  async #deploy(
    fn: FunctionDeclaration,
    bundling: Promise<BundleResult>,
    startNow = false,
  ): Promise<BundleResult> {
    this.#refuseWhenClosed(fn.name);
    const bundle = await bundling;
    this.#refuseWhenClosed(fn.name);
    // The broker's secrets and, while a call runs (and a while after), its credentials.
    const redactor = new Redactor(this.#options.redactor);
    const process = this.#process(fn.name, bundle.outFile, fn.memoryMb, redactor);
    const previous = this.#deployed.get(fn.name);
    // A first version waits for its first call unless asked to start now; a new one is checked
    // by starting it before it takes over, so a version that cannot start never replaces one
    // that works.
    if (previous || startNow) {
      this.#starting.add(process);
      try {
        await process.ready();
        this.#refuseWhenClosed(fn.name);
      } catch (error) {
        // A failed start may leave its process exiting: wait until it is gone.
        await process.stop();
        throw error;
      } finally {
        this.#starting.delete(process);
      }
    }
    this.#options.invoker.register({
      name: fn.name,
      access: fn.access,
      process,
      redactor,
      ...(fn.timeoutMs ? { timeoutMs: fn.timeoutMs } : {}),
    });
    this.#deployed.set(fn.name, { declaration: fn, process, inputs: new Set(bundle.inputs) });
    await previous?.process.stop();
    return bundle;
  }

  #process(
    name: string,
    bundlePath: string,
    memoryMb: number | undefined,
    redactor: Redactor,
  ): FunctionProcess {
    const { print, brokerPort, stateDir, appDir, allowNet, idleStopMs } = this.#options;
    const limitMb = memoryLimitMb(memoryMb);
    return new FunctionProcess({
      name,
      bundlePath,
      brokerPort,
      allowNet,
      idleStopMs: idleStopMs ?? DEFAULT_IDLE_STOP_MS,
      denoDir: join(stateDir, 'deno'),
      memoryMb: limitMb,
      appUrl: `${pathToFileURL(resolve(appDir)).href}/`,
      onOutput: (line, stream) =>
        print(
          `${stream === 'stderr' ? 'ERR  ' : 'OUT  '} [${name}] ${printable(redactor.text(line))}`,
        ),
      onCrash: ({ code, signal, outOfMemory }) =>
        print(
          outOfMemory
            ? `ERROR [${name}] exceeded its memory limit of ${limitMb} MB; restarting`
            : `ERROR [${name}] process exited (${signal ?? `code ${code}`}); restarting`,
        ),
    });
  }

  /**
   * Prints why a start ahead of the first call failed: the first line of the error only, as
   * the lines the process printed meanwhile were printed already (redacted, like this one).
   */
  #reportFailedStart(name: string, error: unknown): void {
    const redactor = this.#options.invoker.get(name)?.redactor ?? this.#options.redactor;
    const reason = errorText(error).split('\n', 1)[0] ?? '';
    this.#options.print(`ERROR [${name}] ${printable(redactor ? redactor.text(reason) : reason)}`);
  }

  #refuseWhenClosed(name: string): void {
    if (this.#closed) throw this.#refusal(name);
  }

  #refusal(name: string): PlatformError {
    return new PlatformError({
      code: 'FUNCTION_UNAVAILABLE',
      message: `Function "${name}" could not be started: the broker is stopping.`,
      details: { function: name },
    });
  }
}
