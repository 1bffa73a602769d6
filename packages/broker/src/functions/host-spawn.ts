import { type ChildProcess, spawn } from 'node:child_process';
import { HOST_PORT_ENV, HOST_READY_PREFIX, HOST_TOKEN_ENV } from '@platform/schema/contract';
import { denoPath, denoRunArgs } from './deno.ts';
import { unavailable } from './function-failures.ts';
import type { FunctionProcessOptions } from './function-process-options.ts';
import { readLines } from './line-reader.ts';
import { isOutOfMemoryLine } from './memory-limit.ts';
import type { StderrTail } from './stderr-tail.ts';

/** How long a start may take before it counts as failed, unless the options say otherwise. */
const START_TIMEOUT_MS = 10_000;

/** One start of a Function's host process. */
export interface HostLaunch {
  /** How the Function runs. */
  readonly options: FunctionProcessOptions;
  /** The port the host listens on; its network permission names exactly this one. */
  readonly port: number;
  /** The bearer token the host demands, so that nothing else on the machine can call it. */
  readonly token: string;
  /** The memory limit in megabytes. */
  readonly memoryMb: number;
  /** Receives what the process prints to stderr; cleared for this start. */
  readonly stderr: StderrTail;
  /** Called when the process reports on stderr that V8 reached the heap limit. */
  readonly onOutOfMemory: (child: ChildProcess) => void;
}

/** A spawned host and the promise of its readiness. */
export interface SpawnedHost {
  readonly child: ChildProcess;
  /**
   * Resolves on the host's readiness line; rejects with `FUNCTION_UNAVAILABLE` when the process
   * fails to spawn, exits first, or stays silent past the start timeout.
   */
  readonly ready: Promise<void>;
}

/**
 * Spawns the Deno host for one Function with least privilege (see `denoRunArgs`) and an
 * environment holding only what the host needs, and passes each line it prints to
 * `options.onOutput` with the app folder cut from it.
 */
export function spawnHost(launch: HostLaunch): SpawnedHost {
  const { options, port, stderr } = launch;
  const env: Record<string, string> = {
    [HOST_PORT_ENV]: String(port),
    [HOST_TOKEN_ENV]: launch.token,
    NO_COLOR: '1',
  };
  if (options.denoDir) env.DENO_DIR = options.denoDir;
  if (process.env.HOME) env.HOME = process.env.HOME;
  const child = spawn(
    denoPath(),
    denoRunArgs(options.bundlePath, options.brokerPort, port, launch.memoryMb, options.allowNet),
    {
      env,
      // stdin stays open and unused: the host exits when it closes, so a broker that dies
      // (even by SIGKILL) leaves no orphan. Its own process group keeps a terminal's Ctrl-C
      // away from it; the broker stops it in order on SIGINT instead.
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    },
  );
  stderr.clear();
  const shorten = (line: string) => (options.appUrl ? line.replaceAll(options.appUrl, '') : line);
  const startTimeout = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(unavailable(options.name, `it did not start within ${startTimeout} ms`, stderr.lines));
    }, startTimeout);
    readLines(child.stdout!, (printed) => {
      const line = shorten(printed);
      if (line.startsWith(HOST_READY_PREFIX)) {
        clearTimeout(timer);
        resolve();
      } else options.onOutput?.(line, 'stdout');
    });
    readLines(child.stderr!, (printed) => {
      const line = shorten(printed);
      if (isOutOfMemoryLine(line)) launch.onOutOfMemory(child);
      stderr.push(line);
      options.onOutput?.(line, 'stderr');
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(unavailable(options.name, error.message));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        unavailable(
          options.name,
          `it exited during start (${signal ?? `code ${code}`})`,
          stderr.lines,
        ),
      );
    });
  });
  return { child, ready };
}
