import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testSnapshotPath } from '../helpers/db.ts';

const script = fileURLToPath(new URL('./fixtures/broker-child.ts', import.meta.url));

/** One line a child broker printed. */
export type ChildEvent = { type: string; [key: string]: unknown };

/** A broker in its own process (fixtures/broker-child.ts), with the events it printed. */
export interface ChildBroker {
  readonly process: ChildProcess;
  readonly events: ChildEvent[];
  readonly stderr: string[];
  /** Resolves with the first event of `type` (waiting up to `timeoutMs`). */
  next(type: string, timeoutMs?: number): Promise<ChildEvent>;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
}

/** Starts fixtures/broker-child.ts (or another such script, by its path) with `env`. */
export function startChild(env: Record<string, string>, path: string = script): ChildBroker {
  const child = spawn(
    process.execPath,
    ['--conditions=@platform/source', '--import', 'tsx', path],
    {
      env: { ...process.env, SNAPSHOT_PATH: testSnapshotPath, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a kill also ends the Deno processes of its Functions.
      detached: true,
    },
  );
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  const events: ChildEvent[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      events.push(JSON.parse(line) as ChildEvent);
    }
    for (const wake of waiters) wake();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = (type: string, timeoutMs = 60_000) =>
    new Promise<ChildEvent>((resolve, reject) => {
      const check = () => {
        const found = events.find((e) => e.type === type);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `no "${type}" event within ${timeoutMs} ms; stderr: ${stderr.join('').slice(-2000)}`,
          ),
        );
      }, timeoutMs);
      waiters.add(check);
      void exited.then(() => setTimeout(check, 50));
      check();
    });
  return {
    process: child,
    events,
    stderr,
    next,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return killGroup('SIGKILL');
      child.kill('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      killGroup('SIGKILL');
    },
    kill: async () => {
      killGroup('SIGKILL');
      await exited;
    },
  };
}
