import type { ChildProcess } from 'node:child_process';

/** True once `child` has exited, by its own hand or by a signal. */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Kills `child` at once (SIGKILL) unless it has exited already. */
export function killNow(child: ChildProcess): void {
  if (!hasExited(child)) child.kill('SIGKILL');
}

/** Asks `child` to exit (SIGTERM), then SIGKILL after `graceMs`; resolves once it has exited. */
export function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (hasExited(child)) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Resolves `true` once `child` has exited, or `false` after `ms`. */
export function exitOf(child: ChildProcess, ms: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Resolves once `child`'s pipes have closed, or after `ms`. What a process printed just before
 * it died may still be in its pipes when the exit is reported; waiting for the close lets the
 * caller read all of it before judging why it died.
 */
export async function pipesClosed(child: ChildProcess, ms: number): Promise<void> {
  if (child.stderr?.closed) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
