import { createHmac, randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What a running `platform dev` writes to `<appDir>/.platform/dev.json` for the other commands. */
export interface DevState {
  /** The app's URL, `http://localhost:<port>`. */
  readonly url: string;
  /** The app's id, as the owner API paths `/v1/apps/{appId}/...` name it. */
  readonly appId: string;
  /** The broker's process id. */
  readonly pid: number;
  /** Bearer token of the broker API's direct invocation (`platform invoke`). */
  readonly token: string;
}

/** Path of the state file of an app folder. */
export const devStatePath = (appDir: string): string => join(appDir, '.platform', 'dev.json');

/** A fresh random dev token. */
export const newDevToken = (): string => randomBytes(24).toString('base64url');

/**
 * The key of the dashboard link `platform dev` prints (`?key=`), derived from the dev token: it
 * opens the dashboard and the organisation page in a browser (a read-only developer cookie) and
 * nothing else; unlike the dev token it is never a bearer credential, so no command prints one.
 */
export const dashboardLinkKey = (devToken: string): string =>
  createHmac('sha256', devToken).update('platform dashboard link').digest('base64url');

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

/** What `.platform/dev.json` says: a running `platform dev`, none, or a file that cannot be used. */
export type DevStateReading =
  | { readonly status: 'running'; readonly state: DevState }
  /** No file, or its process is gone. */
  | { readonly status: 'absent' }
  /** The file exists but cannot be read or is not a state file; `problem` says why. */
  | { readonly status: 'unreadable'; readonly problem: string };

/**
 * Reads the state file of `appDir` and checks that its process is alive, telling a missing file
 * from one that cannot be read or parsed (so a command can say which).
 */
export async function inspectDevState(appDir: string): Promise<DevStateReading> {
  let text: string;
  try {
    text = await readFile(devStatePath(appDir), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { status: 'absent' };
    return { status: 'unreadable', problem: (error as Error).message };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { status: 'unreadable', problem: `not JSON (${(error as Error).message})` };
  }
  const state = value as Partial<DevState> | null;
  if (
    typeof state?.url !== 'string' ||
    typeof state.appId !== 'string' ||
    typeof state.token !== 'string' ||
    !Number.isSafeInteger(state.pid)
  ) {
    return { status: 'unreadable', problem: 'it needs a url, an appId, a pid and a token' };
  }
  try {
    process.kill(state.pid as number, 0);
  } catch (error) {
    // EPERM: alive but someone else's; anything else: gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return { status: 'absent' };
  }
  return { status: 'running', state: state as DevState };
}

/**
 * The state of the `platform dev` serving `appDir`, or `undefined` when none is running (no file,
 * or its process is gone) or the file cannot be used ({@link inspectDevState} tells which).
 */
export async function readDevState(appDir: string): Promise<DevState | undefined> {
  const reading = await inspectDevState(appDir);
  return reading.status === 'running' ? reading.state : undefined;
}
