// Watch mode after rename-style saves: editors that save atomically, and `sed -i`, write a new
// file and rename it over the old one. Every such save, not only the first, must reach the app.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { eventually, fixtureApp } from './fixture-app.ts';
import { devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;

beforeAll(async () => {
  app = await tempDir('watch-rename-');
  await writeFiles(app.path, fixtureApp);
  ({ dev } = await devFor(app.path));
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

/** Saves `text` as `file` the way `sed -i` does: a new file beside it, renamed over it. */
async function saveByRename(file: string, text: string): Promise<void> {
  const target = join(app.path, file);
  const temporary = join(app.path, `${file}.sedXyZ12`);
  await writeFile(temporary, text);
  await rename(temporary, target);
}

const echoSource = (expression: string) =>
  fixtureApp['functions/echo/index.ts']!.replace('echo: input.text ?? null', expression);

const call = async (path: string) => {
  const response = await fetch(`${dev.url}${path}`);
  return { status: response.status, body: (await response.json()) as unknown };
};

describe('watch mode after rename-style saves', () => {
  it('sees every save of a Function replaced by rename', async () => {
    await saveByRename('functions/echo/index.ts', echoSource("echo: 'first'"));
    await eventually(async () =>
      expect((await call('/echo/a')).body).toEqual({ result: { echo: 'first', word: 'a' } }),
    );
    await saveByRename('functions/echo/index.ts', echoSource("echo: 'second'"));
    await eventually(async () =>
      expect((await call('/echo/a')).body).toEqual({ result: { echo: 'second', word: 'a' } }),
    );
    await saveByRename('functions/echo/index.ts', echoSource("echo: 'third'"));
    await eventually(async () =>
      expect((await call('/echo/a')).body).toEqual({ result: { echo: 'third', word: 'a' } }),
    );
  });

  it('sees every save of platform.yaml replaced by rename', async () => {
    const manifest = fixtureApp['platform.yaml']!;
    await saveByRename('platform.yaml', manifest.replace('path: /echo/:word', 'path: /one/:word'));
    await eventually(async () => expect((await call('/one/b')).status).toBe(200));
    await saveByRename('platform.yaml', manifest.replace('path: /echo/:word', 'path: /two/:word'));
    await eventually(async () =>
      expect((await call('/two/b')).body).toEqual({ result: { echo: 'third', word: 'b' } }),
    );
    expect((await call('/one/b')).status).toBe(404);
  });

  it('still sees a plain write after the renames', async () => {
    await writeFile(join(app.path, 'functions/echo/index.ts'), echoSource("echo: 'plain'"));
    await eventually(async () =>
      expect((await call('/two/c')).body).toEqual({ result: { echo: 'plain', word: 'c' } }),
    );
  });
});
