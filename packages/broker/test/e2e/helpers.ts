import { type ChildProcess, spawn } from 'node:child_process';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type DevOptions, type DevServer, startDev } from '../../src/app/start-dev.ts';
import { addMember, TestClock } from '../auth/helpers.ts';
import { headerAuthenticate } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** The repository root. */
export const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** The example app the README starts. */
export const exampleDir = join(root, 'examples/todo');
const bin = join(root, 'packages/broker/src/bin.ts');

/** Two users (the test identity: `x-test-user`). */
export const ada = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';
export const bob = '0b8f8f4e-58a2-4d0e-a3f4-5a3f7c9d1e20';

/**
 * A copy of an example app (`examples/<name>`) in a temporary folder, without its `.platform/`
 * state.
 */
export async function copyExample(
  name = 'todo',
): Promise<{ path: string; remove: () => Promise<void> }> {
  const source = join(root, 'examples', name);
  const dir = await tempDir(`${name}-app-`);
  await cp(source, dir.path, {
    recursive: true,
    filter: (path) => !path.includes(join(source, '.platform')),
  });
  return dir;
}

/**
 * `platform dev` in-process on `appDir`; `lines` is its output. Requests carry the header test
 * identity (`x-test-user`), or with `identity: 'sign-in'` the broker's real sign-in, sessions and
 * private-app admission.
 */
export async function devFor(
  appDir: string,
  options: Partial<DevOptions> = {},
  identity: 'test' | 'sign-in' = 'test',
): Promise<{ dev: DevServer; lines: string[] }> {
  const lines: string[] = [];
  const dev = await startDev({
    appDir,
    port: 0,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    ...(identity === 'test' ? { authenticate: headerAuthenticate } : {}),
    logWriter: (line) => lines.push(line),
    ...options,
  });
  return { dev, lines };
}

/**
 * `platform dev` of a copy of the private example (examples/private-notes) with real sign-in and
 * a test clock, and one confirmed member `email` (password `password`) granted access. Printed
 * lines go to `printed`.
 */
export async function privateNotesDev(
  email: string,
  password: string,
  printed: string[],
): Promise<{ app: { path: string; remove: () => Promise<void> }; dev: DevServer }> {
  const app = await copyExample('private-notes');
  const { dev } = await devFor(
    app.path,
    {
      watch: false,
      inMemory: true,
      clock: new TestClock(Date.now()),
      logWriter: (line) => printed.push(line),
    },
    'sign-in',
  );
  await addMember(dev.broker, email, password);
  await dev.broker.auth.grantAccess(email);
  return { app, dev };
}

/** `fetch` as a given user of the test identity. */
export const fetchAs =
  (user: string | undefined): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (user) headers.set('x-test-user', user);
    return fetch(input, { ...init, headers });
  };

/** Runs the real `platform` CLI (Node 24, sources through tsx) to completion. */
export function platform(
  args: readonly string[],
  cwd = root,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnPlatform(args, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Spawns the real `platform` CLI from its sources, as `npm run platform` does; with `ownGroup`
 * it leads a process group of its own, which what it spawns joins.
 */
export function spawnPlatform(
  args: readonly string[],
  cwd = root,
  { ownGroup = false }: { ownGroup?: boolean } = {},
): ChildProcess {
  return spawn(process.execPath, ['--conditions=@platform/source', bin, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownGroup,
  });
}

/**
 * Runs the real `platform` CLI with the reading end of its stdout closed at once (as `| head`
 * does once it has read enough): its exit code and stderr.
 */
export function platformWithClosedStdout(
  args: readonly string[],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnPlatform(args);
    // The CLI takes far longer to load than this takes, so it writes into a closed pipe.
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

/** Resolves with the first stdout line that is a URL, collecting every line in `lines`. */
export function waitForUrl(
  child: ChildProcess,
  lines: string[],
  timeoutMs = 60_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no URL within ${timeoutMs} ms:\n${lines.join('\n')}`)),
      timeoutMs,
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (/^http:\/\/localhost:\d+$/.test(line)) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`platform dev exited (${code}):\n${lines.join('\n')}`));
    });
  });
}

/** Resolves once `child` exits (its exit code), or rejects after `ms`. */
export function exitOf(child: ChildProcess, ms = 20_000): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the process did not exit')), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Whether a process id is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The error code of an answer (`error.code` of the envelope), or what came instead of JSON. */
export async function codeOf(response: Response): Promise<string | undefined> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
}
