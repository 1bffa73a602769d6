import { join } from 'node:path';
import { limits } from '@platform/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileService } from '../../src/files/file-service.ts';
import type { FileGrant } from '../../src/functions/invocation-tokens.ts';
import { systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { appWithDatabase } from '../helpers/db.ts';

const ALICE = userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
const bytes = (text: string) => new TextEncoder().encode(text);
const DAY_MS = 24 * 60 * 60 * 1000;

let app: Awaited<ReturnType<typeof appWithDatabase>>;
let files: FileService;
const clock = new ManualClock('2025-01-15T12:00:00.000Z');

beforeAll(async () => {
  app = await appWithDatabase();
  files = new FileService(app.db, join(app.appDir, '.platform', 'files'), { clock });
});
afterAll(() => app.cleanup());

const upload = (text: string) =>
  files.upload(ALICE, { data: bytes(text), name: 'a.txt', contentType: 'text/plain' });

const grantOf = async (refs: string[]): Promise<FileGrant> => ({
  files: await files.pinGrant(refs),
  expiresAt: new Date(clock.now().getTime() + limits.fileGrant.expiresSeconds * 1000),
});

describe('delegated file grants in the file service', () => {
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
      const file = await files.upload(ALICE, { data, name: 'big.bin', contentType: 'text/plain' });
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
  });

  it('refuses a replaced or removed granted file and an expired grant', async () => {
    const replaced = await upload('r');
    const removed = await upload('d');
    const kept = await upload('k');
    const grant = await grantOf([replaced.ref, removed.ref, kept.ref]);
    await files.replace(systemCaller(), replaced.ref, { data: bytes('r') });
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
