import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileService } from '../../src/files/file-service.ts';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { newId } from '../../src/kernel/ids.ts';
import { appWithDatabase } from '../helpers/db.ts';

const ALICE = userCaller('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
const BOB = userCaller('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
const SYSTEM = systemCaller();
const bytes = (text: string) => new TextEncoder().encode(text);

let app: Awaited<ReturnType<typeof appWithDatabase>>;
let files: FileService;
let root: string;

beforeAll(async () => {
  app = await appWithDatabase();
  root = join(app.appDir, '.platform', 'files');
  files = new FileService(app.db, root);
});
afterAll(() => app.cleanup());

describe('FileService', () => {
  it('uploads, reads and replaces with a new generation even for identical bytes', async () => {
    const file = await files.upload(ALICE, {
      data: bytes('v1'),
      name: 'a.txt',
      contentType: 'text/plain',
    });
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
    // Only the current generation's bytes stay on disk; history stays in the database.
    expect(await readdir(join(root, file.id))).toEqual(['3']);
    const { rows } = await app.db.query(
      'select generation from platform.file_generations where file_id = $1 order by 1',
      [file.id],
    );
    expect(rows).toEqual([{ generation: 1 }, { generation: 2 }, { generation: 3 }]);
  });

  it('enforces who may write', async () => {
    await expect(
      files.upload(anonymousCaller, { data: bytes('x'), name: 'x', contentType: 'text/plain' }),
    ).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
    });
    const file = await files.upload(ALICE, {
      data: bytes('x'),
      name: 'x',
      contentType: 'text/plain',
    });
    await expect(files.replace(BOB, file.ref, { data: bytes('y') })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(files.remove(BOB, file.ref)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await files.remove(systemCaller(), file.ref);
    await expect(files.info(ALICE, file.ref)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      status: 404,
    });
    await expect(files.info(ALICE, 'file_nope')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('leaves no row and no bytes when the database write fails', async () => {
    const before = await readdir(root);
    // A name the column refuses (NUL byte) makes the INSERT fail after the bytes were written.
    await expect(
      files.upload(ALICE, { data: bytes('zzz'), name: 'bad\u0000name', contentType: 'text/plain' }),
    ).rejects.toThrow();
    expect((await readdir(root)).sort()).toEqual(before.sort());
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
    const { rows } = await app.db.query(
      'select count(*)::int as n from platform.files where size = 3 and name like $1',
      ['bad%'],
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
    // Bytes on disk whose row never came (a process killed between the two), and an id never used.
    const cut = newId('file');
    await files.blobs.write(cut, 1, bytes('b'));
    await files.discard([chosen, cut, newId('file')]);
    expect(await readdir(root)).not.toEqual(expect.arrayContaining([chosen]));
    expect(await readdir(root)).not.toEqual(expect.arrayContaining([cut]));
    await expect(files.info(SYSTEM, chosen)).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    const { rows } = await app.db.query(
      'select count(*)::int as n from platform.file_generations where file_id = $1',
      [chosen],
    );
    expect(rows).toEqual([{ n: 0 }]);
    // An id that is not a file id never reaches the disk.
    await expect(
      files.upload(
        SYSTEM,
        { data: bytes('c'), name: 'c', contentType: 'text/plain' },
        { id: '../x' },
      ),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
