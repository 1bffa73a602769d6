// The behaviour of managed files, the same on each store their bytes can live in: a local folder
// and S3-compatible object storage (s3rver on loopback, started here). Generations, who may
// write, atomic writes, ids chosen ahead, delegated grants (FILE_INPUT_CHANGED), the size limit,
// deletion and the sweep of bytes without a row.

import { join } from 'node:path';
import { limits } from '@platform/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileService } from '../../src/files/file-service.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { openFileStore } from '../../src/files/files-feature.ts';
import type { FileGrant } from '../../src/functions/invocation-tokens.ts';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { newId } from '../../src/kernel/ids.ts';
import { appWithDatabase } from '../helpers/db.ts';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.ts';

const ALICE = userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
const BOB = userCaller('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
const SYSTEM = systemCaller();
const DAY_MS = 24 * 60 * 60 * 1000;
const bytes = (text: string) => new TextEncoder().encode(text);

/** A store for one app, and how to stop what it needs. */
interface Backend {
  readonly name: string;
  open(stateDir: string): Promise<{ store: FileStore; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'a local folder',
    open: async (stateDir) => ({
      store: openFileStore(undefined, { stateDir, appId: 'app_files' }),
      close: async () => undefined,
    }),
  },
  {
    name: 'S3-compatible object storage (s3rver)',
    open: async (stateDir) => {
      const server: S3TestServer = await startS3Server();
      const store = openFileStore(
        { kind: 's3', ...server.settings },
        { stateDir, appId: 'app_files' },
      );
      return {
        store,
        close: async () => {
          store.close();
          await server.close();
        },
      };
    },
  },
];

/** The generations the store holds for `fileId`, in order. */
async function storedGenerations(store: FileStore, fileId: string): Promise<number[]> {
  const found: number[] = [];
  for await (const stored of store.list()) {
    if (stored.fileId === fileId) found.push(stored.generation);
  }
  return found.sort((a, b) => a - b);
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe.each(backends)('files in $name', (backend) => {
  let app: Awaited<ReturnType<typeof appWithDatabase>>;
  let opened: Awaited<ReturnType<Backend['open']>>;
  let files: FileService;
  const clock = new ManualClock('2025-01-15T12:00:00.000Z');

  beforeAll(async () => {
    app = await appWithDatabase();
    opened = await backend.open(join(app.appDir, '.platform'));
    files = new FileService(app.db, opened.store, { clock });
  });
  afterAll(async () => {
    await opened?.close();
    await app?.cleanup();
  });

  const upload = (text: string, caller = ALICE) =>
    files.upload(caller, { data: bytes(text), name: 'a.txt', contentType: 'text/plain' });

  it('uploads, reads and replaces with a new generation even for identical bytes', async () => {
    const file = await upload('v1');
    expect(file).toMatchObject({
      ref: file.id,
      name: 'a.txt',
      contentType: 'text/plain',
      size: 2,
      generation: 1,
    });
    expect(await files.info(BOB, file.ref)).toEqual(file);
    const same = await files.replace(ALICE, file.ref, { data: bytes('v1') });
    expect(same.generation).toBe(2);
    const renamed = await files.replace(ALICE, file.ref, {
      data: bytes('v3!'),
      name: 'b.md',
      contentType: 'text/markdown',
    });
    expect(renamed).toMatchObject({
      generation: 3,
      name: 'b.md',
      contentType: 'text/markdown',
      size: 3,
    });
    const { data } = await files.download(anonymousCaller, file.ref);
    expect(new TextDecoder().decode(data)).toBe('v3!');
    // Only the current generation's bytes stay in the store; history stays in the database.
    expect(await storedGenerations(files.store, file.id)).toEqual([3]);
    const { rows } = await app.db.query(
      'select generation from platform.file_generations where file_id = $1 order by 1',
      [file.id],
    );
    expect(rows).toEqual([{ generation: 1 }, { generation: 2 }, { generation: 3 }]);
  });

  it('stores a streamed upload as it arrives and streams it back', async () => {
    const chunk = new Uint8Array(256 * 1024).fill(7);
    async function* source() {
      for (let i = 0; i < 40; i++) yield chunk; // 10 MiB: a multipart upload on S3
    }
    const file = await files.upload(ALICE, {
      data: source(),
      name: 'big.bin',
      contentType: 'application/octet-stream',
    });
    expect(file.size).toBe(40 * chunk.byteLength);
    const { body } = await files.open(ALICE, file.ref);
    let size = 0;
    let sevens = 0;
    for await (const part of body as AsyncIterable<Uint8Array>) {
      size += part.byteLength;
      for (const byte of part) if (byte === 7) sevens++;
    }
    expect({ size, sevens }).toEqual({ size: file.size, sevens: file.size });
    const { rows } = await app.db.query<{ sha256: string }>(
      'select sha256 from platform.files where id = $1',
      [file.id],
    );
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256');
    for (let i = 0; i < 40; i++) expected.update(chunk);
    expect(rows[0]?.sha256).toBe(expected.digest('hex'));
  });

  it('enforces who may write', async () => {
    await expect(upload('x', anonymousCaller)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    const file = await upload('x');
    await expect(files.replace(BOB, file.ref, { data: bytes('y') })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(files.remove(BOB, file.ref)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await files.remove(SYSTEM, file.ref);
    await expect(files.info(ALICE, file.ref)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      status: 404,
    });
    await expect(files.info(ALICE, 'file_nope')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('deletes a file with its bytes', async () => {
    const file = await upload('gone soon');
    await files.replace(ALICE, file.ref, { data: bytes('gone') });
    expect(await storedGenerations(files.store, file.id)).toEqual([2]);
    await files.remove(ALICE, file.ref);
    expect(await storedGenerations(files.store, file.id)).toEqual([]);
    await expect(files.download(ALICE, file.ref)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });

  it('refuses a file over the size limit, in memory or streamed, and keeps nothing of it', async () => {
    const max = limits.files.maxBytes;
    await expect(
      files.upload(ALICE, { data: new Uint8Array(max + 1), name: 'x', contentType: 'a/b' }),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE', details: { max } });
    const id = newId('file');
    const chunk = new Uint8Array(1024 * 1024);
    async function* overLimit() {
      for (let sent = 0; sent <= max; sent += chunk.byteLength) yield chunk;
    }
    await expect(
      files.upload(SYSTEM, { data: overLimit(), name: 'x', contentType: 'a/b' }, { id }),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE', details: { max } });
    expect(await storedGenerations(files.store, id)).toEqual([]);
    await expect(files.info(SYSTEM, id)).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    // A replace over the limit keeps the current content.
    const kept = await upload('kept');
    await expect(files.replace(ALICE, kept.ref, { data: overLimit() })).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    expect(await storedGenerations(files.store, kept.id)).toEqual([1]);
    expect((await files.download(ALICE, kept.ref)).data.toString()).toBe('kept');
  }, 60_000);

  it('leaves no row and no bytes when the database write fails', async () => {
    const id = newId('file');
    // A name the column refuses (NUL byte) makes the INSERT fail after the bytes were stored.
    await expect(
      files.upload(
        ALICE,
        { data: bytes('zzz'), name: 'bad\u0000name', contentType: 'text/plain' },
        { id },
      ),
    ).rejects.toThrow();
    expect(await storedGenerations(files.store, id)).toEqual([]);
    const { rows } = await app.db.query(
      'select count(*)::int as n from platform.files where id = $1',
      [id],
    );
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('stores under an id chosen ahead, and discards files whether or not their upload committed', async () => {
    const chosen = newId('file');
    const file = await files.upload(
      SYSTEM,
      { data: bytes('a'), name: 'a', contentType: 'text/plain' },
      { id: chosen },
    );
    expect(file.id).toBe(chosen);
    // Bytes whose row never came (a process killed between the two), and an id never used.
    const cut = newId('file');
    await files.store.put(cut, 1, [bytes('b')]);
    await files.discard([chosen, cut, newId('file')]);
    expect(await storedGenerations(files.store, chosen)).toEqual([]);
    expect(await storedGenerations(files.store, cut)).toEqual([]);
    await expect(files.info(SYSTEM, chosen)).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    const { rows } = await app.db.query(
      'select count(*)::int as n from platform.file_generations where file_id = $1',
      [chosen],
    );
    expect(rows).toEqual([{ n: 0 }]);
    // An id that is not a file id never reaches the store.
    await expect(
      files.upload(
        SYSTEM,
        { data: bytes('c'), name: 'c', contentType: 'text/plain' },
        { id: '../x' },
      ),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('sweeps the bytes of interrupted uploads and old generations once old enough, and nothing it has no record of', async () => {
    const live = await upload('live');
    await files.replace(ALICE, live.ref, { data: bytes('live 2') });
    // What a process killed between storing an upload's bytes and committing its row leaves.
    const cut = newId('file');
    await app.db.query('INSERT INTO platform.file_pending (file_id) VALUES ($1)', [cut]);
    await files.store.put(cut, 1, [bytes('no row')]);
    // A replaced generation whose removal failed (the store was down at the time).
    await files.store.put(live.id, 1, [bytes('old')]);
    // Bytes the database has no record of (a store shared with another database).
    const unknown = newId('file');
    await files.store.put(unknown, 1, [bytes('not ours')]);
    // Recent bytes stay: their upload may be about to commit.
    await files.sweep();
    expect(await storedGenerations(files.store, cut)).toEqual([1]);
    expect(await storedGenerations(files.store, live.id)).toEqual([1, 2]);
    // S3 keeps modification times in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await files.sweep(1_000);
    expect(await storedGenerations(files.store, cut)).toEqual([]);
    expect(await storedGenerations(files.store, live.id)).toEqual([2]);
    expect(await storedGenerations(files.store, unknown)).toEqual([1]);
    expect((await files.download(ALICE, live.ref)).data.toString()).toBe('live 2');
    const { rows } = await app.db.query('select file_id from platform.file_pending');
    expect(rows).toEqual([]);
  });

  describe('delegated read grants', () => {
    const grantOf = async (refs: string[]): Promise<FileGrant> => ({
      files: await files.pinGrant(refs),
      expiresAt: new Date(clock.now().getTime() + limits.fileGrant.expiresSeconds * 1000),
    });

    it('pins each distinct file to its current generation', async () => {
      const a = await upload('a');
      const b = await upload('b');
      await files.replace(ALICE, b.ref, { data: bytes('b2') });
      expect(await files.pinGrant([a.ref, b.ref, a.ref])).toEqual([
        { id: a.ref, generation: 1 },
        { id: b.ref, generation: 2 },
      ]);
    });

    it('refuses an empty or too long list and a missing file', async () => {
      await expect(files.pinGrant([])).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
      const many = Array.from({ length: limits.fileGrant.maxFiles + 1 }, (_, i) => `file_${i}`);
      await expect(files.pinGrant(many)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
      await expect(files.pinGrant(['file_missing'])).rejects.toMatchObject({
        code: 'FILE_NOT_FOUND',
        details: { ref: 'file_missing' },
      });
    });

    it('grants files of 128 MiB together, and refuses one byte more', async () => {
      const { totalMaxBytes } = limits.fileGrant;
      const { maxBytes } = limits.files;
      // Files of the largest size, then the remainder: exactly the total a grant may hold.
      const sizes = [maxBytes, maxBytes, totalMaxBytes - 2 * maxBytes];
      const refs: string[] = [];
      for (const size of sizes) {
        const data = new Uint8Array(size);
        const file = await files.upload(ALICE, {
          data,
          name: 'big.bin',
          contentType: 'text/plain',
        });
        refs.push(file.ref);
      }
      expect(await files.pinGrant(refs)).toHaveLength(3);
      const byte = await upload('x');
      await expect(files.pinGrant([...refs, byte.ref])).rejects.toMatchObject({
        code: 'LIMIT_EXCEEDED',
        details: { field: 'files.read', size: totalMaxBytes + 1, limit: totalMaxBytes },
      });
      // A file named twice counts once.
      expect(await files.pinGrant([...refs, refs[0] as string])).toHaveLength(3);
    }, 60_000);

    it('lets reads through without a grant and for files outside it', async () => {
      const granted = await upload('g');
      const other = await upload('o');
      const grant = await grantOf([granted.ref]);
      await files.replace(ALICE, other.ref, { data: bytes('o2') });
      await expect(files.checkGrantedRead(undefined, granted.ref)).resolves.toBeUndefined();
      await expect(files.checkGrantedRead(grant, other.ref)).resolves.toBeUndefined();
      await expect(files.checkGrantedRead(grant, granted.ref)).resolves.toBeUndefined();
      expect(await readAll((await files.open(ALICE, granted.ref)).body)).toBe('g');
    });

    it('refuses a replaced or removed granted file and an expired grant', async () => {
      const replaced = await upload('r');
      const removed = await upload('d');
      const kept = await upload('k');
      const grant = await grantOf([replaced.ref, removed.ref, kept.ref]);
      await files.replace(SYSTEM, replaced.ref, { data: bytes('r') });
      await files.remove(ALICE, removed.ref);
      await expect(files.checkGrantedRead(grant, replaced.ref)).rejects.toMatchObject({
        code: 'FILE_INPUT_CHANGED',
        details: { ref: replaced.ref, grantedGeneration: 1, currentGeneration: 2 },
      });
      await expect(files.checkGrantedRead(grant, removed.ref)).rejects.toMatchObject({
        code: 'FILE_NOT_FOUND',
      });
      clock.advance(limits.fileGrant.expiresSeconds * 1000 + DAY_MS);
      await expect(files.checkGrantedRead(grant, kept.ref)).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
      });
    });
  });
});
