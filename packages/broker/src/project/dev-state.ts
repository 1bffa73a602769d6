import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What a running `platform dev` writes to `<appDir>/.platform/dev.json` for the other commands. */
export interface DevState {
  /** The app's URL, `http://localhost:<port>`. */
  readonly url: string;
  /** The broker's process id. */
  readonly pid: number;
  /** Bearer token of the broker API's direct invocation (`platform invoke`). */
  readonly token: string;
}

/** Path of the state file of an app folder. */
export const devStatePath = (appDir: string): string => join(appDir, '.platform', 'dev.json');

/** A fresh random dev token. */
export const newDevToken = (): string => randomBytes(24).toString('base64url');

/** Writes the state file, readable by its owner only (it holds the dev token). */
export async function writeDevState(appDir: string, state: DevState): Promise<void> {
  await writeFile(devStatePath(appDir), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Removes the state file if it is still the one written with `token`: a start that failed (a
 * second `platform dev` on the folder, even in the same process) leaves the running one's alone.
 */
export async function clearDevState(appDir: string, token: string): Promise<void> {
  const text = await readFile(devStatePath(appDir), 'utf8').catch(() => undefined);
  let written: unknown;
  try {
    written = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return;
  }
  if ((written as Partial<DevState> | undefined)?.token === token) {
    await rm(devStatePath(appDir), { force: true });
  }
}

/**
 * The state of the `platform dev` serving `appDir`, or `undefined` when none is running (no file,
 * or its process is gone).
 */
export async function readDevState(appDir: string): Promise<DevState | undefined> {
  const text = await readFile(devStatePath(appDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let state: DevState;
  try {
    state = JSON.parse(text) as DevState;
  } catch {
    return undefined;
  }
  try {
    process.kill(state.pid, 0);
  } catch (error) {
    // EPERM: alive but someone else's; anything else: gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return state;
}
