// `platform dev` starts every declared Function's process in the background once the app is
// ready, so that a Function's first call is answered by a process that was listening already
// instead of waiting for a Deno start and the load of its bundle on the request path. With
// `startFunctions: 'call'` each starts on its first call, as before. What users rely on: the
// first call is answered by the process started ahead (no start happens for it), a Function
// that cannot load is reported at once and fails its own calls only, and stopping right after
// ready leaves no Deno process behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { main } from '../../src/cli/main.ts';
import { devFor } from '../e2e/helpers.ts';
import { writeFiles } from '../helpers/broker.ts';
import { processesOf } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const greet = (word: string) => `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ name: s.string() }),
  handler: (ctx) => ({ greeting: '${word}, ' + ctx.input.name, pid: Deno.pid }),
});
`;

const files = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: hello
    entrypoint: functions/hello.ts
    access: public
  - name: bye
    entrypoint: functions/bye.ts
    access: public
  - name: broken
    entrypoint: functions/broken.ts
    access: public
`,
  'functions/hello.ts': greet('Hello'),
  'functions/bye.ts': greet('Bye'),
  'functions/broken.ts': `throw new Error('no configuration at load');
`,
};

const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals.reverse()) await remove();
});

/** `platform dev` in-process on a fresh copy of `files`. */
async function start(
  startFunctions?: 'ready' | 'call',
): Promise<{ dev: DevServer; lines: string[] }> {
  const dir = await tempDir('start-ahead-');
  removals.push(dir.remove);
  await writeFiles(dir.path, files);
  const started = await devFor(dir.path, {
    watch: false,
    ...(startFunctions ? { startFunctions } : {}),
  });
  removals.push(() => started.dev.close());
  return started;
}

async function call(dev: DevServer, name: string, body: unknown): Promise<Response> {
  return dev.fetch(
    new Request(`${dev.url}/_platform/api/functions/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

const processOf = (dev: DevServer, name: string) => dev.broker.invoker.get(name)?.process;
const deno = () => processesOf(process.pid, 'deno');

describe('platform dev with Functions started ahead (the default)', () => {
  let dev: DevServer;
  let lines: string[];
  beforeAll(async () => {
    ({ dev, lines } = await start());
  });

  it('starts each Function once ready, before any call', async () => {
    await expect
      .poll(() => ['hello', 'bye'].map((name) => processOf(dev, name)?.pid !== undefined), {
        timeout: 20_000,
      })
      .toEqual([true, true]);
  });

  it('answers each first call from the process started ahead, starting none for it', async () => {
    for (const name of ['hello', 'bye']) {
      const running = processOf(dev, name);
      const pid = running?.pid;
      expect(pid).toBeDefined();
      const startsBefore = running?.starts;
      const response = await call(dev, name, { name: 'Ada' });
      expect(response.status).toBe(200);
      const { result } = (await response.json()) as { result: { greeting: string; pid: number } };
      expect(result.greeting).toMatch(/, Ada$/);
      expect(result.pid).toBe(pid);
      expect(running?.starts).toBe(startsBefore);
    }
  });

  it('reports a Function that cannot load at once, and fails its calls only', async () => {
    await expect
      .poll(() => lines.find((line) => line.startsWith('ERROR [broken]')), { timeout: 20_000 })
      .toMatch(/Function "broken" could not be started/);
    expect(lines.join('\n')).toContain('no configuration at load');
    const response = await call(dev, 'broken', {});
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('FUNCTION_UNAVAILABLE');
    expect((await call(dev, 'hello', { name: 'Grace' })).status).toBe(200);
  });
});

describe('platform dev with startFunctions: call', () => {
  it('starts no process until the first call, which starts one', async () => {
    const { dev } = await start('call');
    // The default mode has both running well within this time (see above).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(processOf(dev, 'hello')?.pid).toBeUndefined();
    expect(processOf(dev, 'hello')?.starts).toBe(0);
    const response = await call(dev, 'hello', { name: 'Ada' });
    expect(response.status).toBe(200);
    expect(processOf(dev, 'hello')?.starts).toBe(1);
  });
});

describe('platform dev stopped while its Functions start', () => {
  it('leaves no Deno process behind', async () => {
    const before = new Set(deno());
    const { dev } = await start();
    await dev.close();
    const ours = () => deno().filter((pid) => !before.has(pid));
    expect(ours()).toEqual([]);
    // Nor later: no start was still under way.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(ours()).toEqual([]);
  });
});

describe('platform dev --start-functions', () => {
  it('refuses a value other than ready or call, naming both, before starting anything', async () => {
    const errors: string[] = [];
    const io = { stdout: () => undefined, stderr: (line: string) => errors.push(line), cwd: '/' };
    expect(await main(['dev', '--start-functions', 'sometimes'], io)).toBe(2);
    expect(errors.join('\n')).toContain('--start-functions must be ready or call');
  });
});
