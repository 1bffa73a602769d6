import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// `npm test` covers Deno: the suite in test/deno runs under the real Deno binary (the `deno`
// npm package), offline, with network access only to 127.0.0.1.
//
// Deno resolves every `@platform/*` import the way it does for a user, through the packages'
// `exports` maps (the workspace links in node_modules), with `--conditions=@platform/source`
// picking each entry's sources instead of `dist/`. So the suite needs no build, a stale `dist/`
// cannot stand in for the sources, and a subpath missing from an `exports` map fails here as it
// would for users. An import map would restate those paths and still miss some imports: Deno
// resolves schema's own `@platform/errors` through schema's package.json, to `dist/`.
const root = fileURLToPath(new URL('../../../', import.meta.url));

it('passes the Deno suite (test/deno) under real Deno', () => {
  const result = spawnSync(
    'node_modules/.bin/deno',
    [
      'test',
      '--no-prompt',
      '--allow-net=127.0.0.1',
      '--conditions=@platform/source',
      'packages/server/test/deno/',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  expect(result.status, output).toBe(0);
  expect(output).toMatch(/ok \| \d+ passed \| 0 failed/);
}, 130_000);
