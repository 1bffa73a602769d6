// Ctrl-C while `platform dev` starts for the first time in a folder: the real CLI as a child,
// SIGINT as each step of its start begins (the steps `--verbose` prints), then the child is gone
// within a few seconds (its processes soon after), no lock file is left in .platform, the URL
// never printed as if it were ready, and the next start in the folder works. The CLI leads a
// process group of its own, so that what it spawned is found even after it exits: nothing of it
// may go on (esbuild finishing a bundle into the folder, say).
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { DevStartStep } from '../../src/app/start-dev.ts';
import { descendantsOf, processesInGroup } from '../helpers/processes.ts';
import { eventually } from './fixture-app.ts';
import { alive, copyExample, exitOf, spawnPlatform, waitForUrl } from './helpers.ts';

/** Whether a printed line is the app's address, printed once the start is ready. */
const isUrl = (line: string) => /^http:\/\/localhost:\d+$/.test(line);

/** Whether the process of a `descendantsOf` entry is alive. */
const stillAlive = (entry: string) => alive(Number.parseInt(entry, 10));

/** The files under `dir` whose name ends in `.lock`, recursively. */
async function lockFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((name) => name.endsWith('.lock'));
}

/** Resolves once `child` prints `line` on stdout. */
function printed(child: ChildProcess, line: string, all: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (one) => {
      all.push(one);
      if (one === line) resolve();
    });
    createInterface({ input: child.stderr! }).on('line', (one) => all.push(one));
    child.once('exit', () => reject(new Error(`exited before "${line}":\n${all.join('\n')}`)));
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A first `platform dev` in a new copy of the example, interrupted as `step` begins. */
async function interruptAt(step: DevStartStep, presses: number) {
  const app = await copyExample();
  const child = spawnPlatform(['dev', app.path, '--port', '0', '--verbose'], undefined, {
    ownGroup: true,
  });
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await app.remove();
  });
  const lines: string[] = [];
  await printed(child, `Starting: ${step}`, lines);
  const started = descendantsOf(child.pid!);
  for (let press = 0; press < presses; press++) child.kill('SIGINT');
  const code = await exitOf(child, 5_000);
  // Its group as it exits: a signal sent on the way out takes a moment to land.
  await eventually(async () => expect(processesInGroup(child.pid!)).toEqual([]), 300);
  return { app, code, lines, started };
}

const steps: DevStartStep[] = [
  'reading platform.yaml',
  'bundling the Functions',
  'opening the databases',
  'starting the broker',
  'listening for mail',
  'watching the app folder',
];

describe('Ctrl-C during the first start of platform dev', { timeout: 120_000 }, () => {
  for (const step of steps) {
    it(`stops at once, leaving no process and no lock, when pressed at "${step}"`, async () => {
      const { app, code, lines, started } = await interruptAt(step, 1);
      expect(code).toBe(0);
      const stopping = lines.indexOf('Stopping (SIGINT)...');
      expect(stopping).toBeGreaterThan(-1);
      // The last step is over in milliseconds, so the press may land once the start is done: the
      // app is then ready first and stopped after. Never is it called ready once stopping.
      const last = step === steps.at(-1);
      expect(lines.slice(last ? stopping : 0).some(isUrl)).toBe(false);
      await eventually(async () => expect(started.filter(stillAlive)).toEqual([]), 5_000);
      expect(await lockFiles(join(app.path, '.platform'))).toEqual([]);
    });
  }

  it('leaves no lock behind on a second Ctrl-C, and the next start works', async () => {
    const { app, lines, started } = await interruptAt('opening the databases', 2);
    expect(lines.some(isUrl)).toBe(false);
    await eventually(async () => expect(started.filter(stillAlive)).toEqual([]), 5_000);
    expect(await lockFiles(join(app.path, '.platform'))).toEqual([]);
    const again = spawnPlatform(['dev', app.path, '--port', '0']);
    cleanups.push(async () => {
      if (again.exitCode === null) again.kill('SIGKILL');
    });
    await waitForUrl(again, []);
    again.kill('SIGINT');
    expect(await exitOf(again)).toBe(0);
    expect(await lockFiles(join(app.path, '.platform'))).toEqual([]);
  });
});
