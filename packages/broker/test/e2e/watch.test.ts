// Watch mode: a changed Function is re-bundled and swapped, a new migration is applied, a changed
// platform.yaml is reloaded, and a broken edit keeps the previous version serving.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/dev/dev-server.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { eventually, fixtureApp } from './fixture-app.ts';
import { devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let lines: string[];

beforeAll(async () => {
  app = await tempDir('watch-');
  await writeFiles(app.path, fixtureApp);
  ({ dev, lines } = await devFor(app.path));
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const echo = async () => {
  const response = await fetch(`${dev.url}/_platform/api/functions/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"text":"hi"}',
  });
  return (await response.json()) as { result?: Record<string, unknown> };
};

describe('watch mode', () => {
  it('re-bundles a changed Function and swaps it without a restart', async () => {
    const url = dev.url;
    await writeFile(
      join(app.path, 'functions/echo/index.ts'),
      fixtureApp['functions/echo/index.ts']!.replace(
        'echo: input.text',
        'shout: input.text?.toUpperCase()',
      ),
    );
    await eventually(async () => expect((await echo()).result).toMatchObject({ shout: 'HI' }));
    expect(dev.url).toBe(url);
  });

  it('keeps serving the previous version after a broken edit', async () => {
    await writeFile(join(app.path, 'functions/echo/index.ts'), 'export default defineFunction({');
    await dev.settled();
    await eventually(async () =>
      expect(lines.join('\n')).toContain('Still running the previous version of echo'),
    );
    expect((await echo()).result).toMatchObject({ shout: 'HI' });
  });

  it('applies a new migration', async () => {
    await writeFile(
      join(app.path, 'migrations/002_tags.sql'),
      'create table tags (id integer primary key, name text not null);\ninsert into tags values (1, $$a$$);',
    );
    await eventually(async () => {
      const response = await fetch(`${dev.url}/rest/v1/tags`);
      expect(await response.json()).toEqual([{ id: 1, name: 'a' }]);
    });
  });

  it('reloads a changed platform.yaml on the same port', async () => {
    await writeFile(
      join(app.path, 'functions/echo/index.ts'),
      fixtureApp['functions/echo/index.ts']!,
    );
    await writeFile(
      join(app.path, 'platform.yaml'),
      fixtureApp['platform.yaml']!.replace('path: /echo/:word', 'path: /say/:word'),
    );
    await eventually(async () => {
      const response = await fetch(`${dev.url}/say/hello`);
      expect(await response.json()).toEqual({ result: { echo: null, word: 'hello' } });
    });
    expect((await fetch(`${dev.url}/echo/hello`)).status).toBe(404);
  });

  it('keeps the running version when platform.yaml gets an error', async () => {
    await writeFile(join(app.path, 'platform.yaml'), 'schemaVersion: 3\nfunctions: 7\n');
    await dev.settled();
    await eventually(async () =>
      expect(lines.join('\n')).toContain('still serving the previous version'),
    );
    expect((await fetch(`${dev.url}/say/again`)).status).toBe(200);
  });
});
