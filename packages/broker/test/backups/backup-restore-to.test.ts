// `platform backups restore <id> --to <new app>` under platform dev: the backup becomes a new app
// beside the live one, serving at <new>.localhost with the backup's rows and files, while the
// live app stays exactly as it was. The new id is checked like any app id; an app access token
// may not ask for it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fillPath } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { FolderFileStore } from '../../src/files/folder-store.ts';
import { ownerApiPaths } from '../../src/http/paths.ts';
import { systemCaller } from '../../src/kernel/caller.ts';
import { copyExample, devFor } from '../e2e/helpers.ts';
import { call } from '../serve/serve-harness.ts';

let app: Awaited<ReturnType<typeof copyExample>>;
let dev: DevServer;

beforeAll(async () => {
  app = await copyExample('todo');
  // On disk, as a developer runs it: the copy gets a data directory of its own.
  ({ dev } = await devFor(app.path, { watch: false }, 'sign-in'));
}, 180_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const owner = () => ({
  authorization: `Bearer ${dev.devToken}`,
  'content-type': 'application/json',
});
const backupsPath = (suffix = '') =>
  `${fillPath(ownerApiPaths.backups, { appId: dev.appId })}${suffix}`;
const post = (path: string, body: unknown, headers: Record<string, string> = owner()) =>
  dev.fetch(
    new Request(`${dev.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
  );
const errorCode = async (response: Response) =>
  ((await response.json()) as { error: { code: string } }).error.code;

/** The live app's rows and files, as the test compares them before and after. */
async function liveState() {
  const tips = await dev.broker.db.query('SELECT id, text FROM public.tips ORDER BY id');
  const files = await dev.broker.db.query('SELECT id, generation FROM platform.files ORDER BY id');
  return { tips: tips.rows, files: files.rows };
}

describe('restoring a backup into a new app under platform dev', () => {
  let backupId: string;
  let fileRef: string;

  it('serves the backup as a new app beside the live one, which stays as it was', async () => {
    await dev.broker.db.query("INSERT INTO public.tips (id, text) VALUES (10, 'backed up')");
    fileRef = (
      await dev.broker.files.upload(systemCaller(), {
        data: Buffer.from('bytes at the backup'),
        name: 'a.txt',
        contentType: 'text/plain',
      })
    ).ref;
    const taken = await post(backupsPath(), {});
    expect(taken.status).toBe(201);
    backupId = ((await taken.json()) as { backup: { id: string } }).backup.id;

    // The live app moves on after the backup.
    await dev.broker.db.query("UPDATE public.tips SET text = 'changed' WHERE id = 10");
    await dev.broker.db.query("INSERT INTO public.tips (id, text) VALUES (11, 'after')");
    await dev.broker.files.replace(systemCaller(), fileRef, { data: Buffer.from('later bytes') });
    const before = await liveState();

    const restored = await post(backupsPath(`/${backupId}/restore`), { to: 'todo-copy' });
    expect(restored.status).toBe(201);
    const answer = (await restored.json()) as {
      restored: { id: string };
      app: { appId: string; url: string };
    };
    expect(answer.restored.id).toBe(backupId);
    expect(answer.app.appId).toBe('todo-copy');
    expect(answer.app.url).toMatch(/^http:\/\/todo-copy\.localhost:\d+$/);

    // The new app serves the backup's rows at its own address.
    const { port } = new URL(answer.app.url);
    const tips = await call(Number(port), `todo-copy.localhost:${port}`, '/rest/v1/tips?order=id');
    expect(tips.status).toBe(200);
    const rows = JSON.parse(tips.body) as { id: number; text: string }[];
    expect(rows.find((row) => row.id === 10)?.text).toBe('backed up');
    expect(rows.some((row) => row.id === 11)).toBe(false);
    // The file generations the backup referenced are in the new app's own store.
    const store = new FolderFileStore(
      join(app.path, '.platform', 'restored', 'todo-copy', 'files'),
    );
    const body = await store.get(fileRef, 1);
    const chunks: Buffer[] = [];
    for await (const chunk of body ?? []) chunks.push(Buffer.from(chunk as Uint8Array));
    expect(Buffer.concat(chunks).toString()).toBe('bytes at the backup');
    expect(await store.get(fileRef, 2)).toBeUndefined();
    // Its owner API answers under its own id; the live app's backups are not its own.
    const listed = await call(
      Number(port),
      `todo-copy.localhost:${port}`,
      '/v1/apps/todo-copy/backups',
      { authorization: `Bearer ${dev.devToken}` },
    );
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body)).toEqual({ backups: [] });

    // The live app is exactly as it was, rows, files and bytes.
    expect(await liveState()).toEqual(before);
    expect((await dev.broker.files.download(systemCaller(), fileRef)).data.toString()).toBe(
      'later bytes',
    );
  }, 120_000);

  it('refuses an id that is taken or is no app id, and changes nothing', async () => {
    const before = await liveState();
    for (const [to, status, code] of [
      [dev.appId, 409, 'APP_ID_TAKEN'],
      ['todo-copy', 409, 'APP_ID_TAKEN'],
      ['Not_An_Id', 400, 'INVALID_INPUT'],
      ['-todo', 400, 'INVALID_INPUT'],
      [42, 400, 'INVALID_INPUT'],
    ] as const) {
      const answer = await post(backupsPath(`/${backupId}/restore`), { to });
      expect(answer.status, String(to)).toBe(status);
      expect(await errorCode(answer), String(to)).toBe(code);
    }
    const missing = await post(backupsPath('/bak_000000000000000000000000/restore'), {
      to: 'todo-other',
    });
    expect(await errorCode(missing)).toBe('BACKUP_NOT_FOUND');
    expect(await liveState()).toEqual(before);
  });

  it('refuses an app access token', async () => {
    const { token } = await dev.broker.auth.appTokens.issue('restore-to');
    const answer = await post(
      backupsPath(`/${backupId}/restore`),
      { to: 'todo-token' },
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    );
    expect(answer.status).toBe(403);
    expect(await errorCode(answer)).toBe('PERMISSION_DENIED');
  });

  it('is removed by the next start of platform dev, which frees its id', async () => {
    const restored = join(app.path, '.platform', 'restored', 'todo-copy');
    expect(existsSync(join(restored, 'db'))).toBe(true);
    await dev.close();
    ({ dev } = await devFor(app.path, { watch: false }, 'sign-in'));
    expect(existsSync(restored)).toBe(false);
    const again = await post(backupsPath(`/${backupId}/restore`), { to: 'todo-copy' });
    expect(again.status).toBe(201);
  }, 120_000);
});
