// The content types of an app's frontend files (hono's table): text with its charset, common
// media and fonts, and unknown files as bytes to download.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Frontend } from '../../src/api/frontend.ts';
import type { BrokerEnv } from '../../src/http/broker-env.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let dir: { path: string; remove: () => Promise<void> };
const app = new Hono<BrokerEnv>();

beforeAll(async () => {
  dir = await tempDir('frontend-types-');
  const files = ['index.html', 'a.css', 'b.mjs', 'c.svg', 'd.avif', 'e.woff', 'f.csv', 'g.xyz'];
  await mkdir(join(dir.path, 'public'));
  for (const name of files) await writeFile(join(dir.path, 'public', name), 'x');
  new Frontend(dir.path).mount(app);
});
afterAll(() => dir?.remove());

const typeOf = async (path: string) =>
  (await app.request(path)).headers.get('content-type') ?? undefined;

describe('the content type of a frontend file', () => {
  it('follows its extension', async () => {
    expect(await typeOf('/')).toBe('text/html; charset=utf-8');
    expect(await typeOf('/a.css')).toBe('text/css; charset=utf-8');
    expect(await typeOf('/b.mjs')).toBe('text/javascript; charset=utf-8');
    expect(await typeOf('/c.svg')).toMatch(/^image\/svg\+xml/);
    // Beyond the table the broker kept by hand.
    expect(await typeOf('/d.avif')).toBe('image/avif');
    expect(await typeOf('/e.woff')).toBe('font/woff');
    expect(await typeOf('/f.csv')).toBe('text/csv; charset=utf-8');
  });

  it('is bytes to download for an unknown extension', async () => {
    expect(await typeOf('/g.xyz')).toBe('application/octet-stream');
  });
});
