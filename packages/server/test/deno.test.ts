import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// `npm test` covers Deno: the suite in test/deno runs under the real Deno binary (the `deno`
// npm package), offline, with network access only to 127.0.0.1.
const root = fileURLToPath(new URL('../../../', import.meta.url));

it('passes the Deno suite (test/deno) under real Deno', () => {
  const result = spawnSync(
    'node_modules/.bin/deno',
    [
      'test',
      '--no-prompt',
      '--allow-net=127.0.0.1',
      '--config',
      'packages/server/deno.json',
      'packages/server/test/deno/',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  expect(result.status, output).toBe(0);
  expect(output).toMatch(/ok \| \d+ passed \| 0 failed/);
}, 130_000);
