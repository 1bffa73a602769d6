// A disk that fills up while a file is written: the write fails after part of the bytes reached
// the temp file (an injected ENOSPC where the folder store writes them, since this machine has no
// small file system to fill). The caller gets a retryable error, no temp file or empty folder is
// left, a replaced file keeps its current content, and leftovers of earlier failures or crashes
// are swept when the broker starts.

import type { FileHandle } from 'node:fs/promises';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FolderFileStore } from '../../src/files/folder-store.ts';
import { brokerFor } from '../helpers/broker.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
let env: Awaited<ReturnType<typeof brokerFor>>;
let root: string;

beforeAll(async () => {
  env = await brokerFor({
    'functions/store.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ ref: s.optional(s.string()), text: s.string() }),
  handler: async ({ input, files }) => {
    const data = new TextEncoder().encode(input.text);
    if (input.ref) return files.replace(input.ref, { data, name: 'a.txt' });
    return files.upload({ data, name: 'a.txt', contentType: 'text/plain' });
  },
});
`,
  });
  await env.broker.addFunction({ name: 'store', entrypoint: 'functions/store.ts', access: 'user' });
  root = join(env.appDir, '.platform/files');
});
afterAll(() => env?.cleanup());

const store = async (input: { ref?: string; text: string }) => {
  const response = await fetch(`${env.broker.server.url}/_platform/api/functions/store`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': ALICE },
    body: JSON.stringify(input),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The disk fills up after half of the bytes were written. */
function fillTheDisk(): () => void {
  const folder = env.broker.files.store as FolderFileStore;
  const original = folder.fill;
  folder.fill = async (
    handle: FileHandle,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ) => {
    for await (const data of body) {
      await handle.write(data.subarray(0, Math.floor(data.byteLength / 2)));
      break;
    }
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  return () => {
    folder.fill = original;
  };
}

describe('a full disk while writing a file', () => {
  it('answers a retryable error and leaves no temp file or empty folder', async () => {
    const before = (await readdir(root).catch(() => [] as string[])).filter((n) => n !== '.tmp');
    const restore = fillTheDisk();
    const failed = await store({ text: 'x'.repeat(10_000) });
    restore();
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ error: { code: 'STORAGE_UNAVAILABLE', retryable: true } });
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
    expect((await readdir(root)).filter((n) => n !== '.tmp')).toEqual(before);
  });

  it('keeps the current content of a file whose replace fails', async () => {
    const created = await store({ text: 'first' });
    expect(created.status).toBe(200);
    const ref = created.body.result as string;
    const restore = fillTheDisk();
    const failed = await store({ ref, text: 'second version' });
    restore();
    expect(failed.body).toMatchObject({ error: { code: 'STORAGE_UNAVAILABLE', retryable: true } });
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
    expect(await readdir(join(root, ref))).toEqual(['1']);
    const kept = await env.broker.files.download({ kind: 'system' }, ref);
    expect(kept.data.toString()).toBe('first');
  });

  it('answers STORAGE_UNAVAILABLE with the reason when the files folder may not be written', async () => {
    const folder = env.broker.files.store as FolderFileStore;
    const original = folder.fill;
    for (const code of ['EROFS', 'EACCES', 'EPERM']) {
      folder.fill = async () => {
        throw Object.assign(new Error(`${code}: read-only file system, write`), { code });
      };
      const failed = await store({ text: 'x' });
      folder.fill = original;
      expect(failed.status, code).toBe(503);
      expect(failed.body, code).toMatchObject({
        error: { code: 'STORAGE_UNAVAILABLE', retryable: true, details: { reason: code } },
      });
      expect(JSON.stringify(failed.body), code).toContain('may not be written');
      expect(await readdir(join(root, '.tmp'))).toEqual([]);
    }
  });

  it('sweeps temp files and empty folders left by earlier runs at start', async () => {
    await env.broker.close();
    const longAgo = new Date(Date.now() - 3_600_000);
    await mkdir(join(root, '.tmp'), { recursive: true });
    const temp = join(root, '.tmp', 'file_0123.1.abcdef');
    await writeFile(temp, 'half of a file');
    const empty = join(root, `file_${'0'.repeat(32)}`);
    await mkdir(empty, { recursive: true });
    for (const path of [temp, empty]) await utimes(path, longAgo, longAgo);
    const again = await brokerFor({}, { appDir: env.appDir });
    try {
      expect(await readdir(join(root, '.tmp'))).toEqual([]);
      expect(await readdir(root)).not.toContain(`file_${'0'.repeat(32)}`);
    } finally {
      await again.broker.close();
    }
  });
});
