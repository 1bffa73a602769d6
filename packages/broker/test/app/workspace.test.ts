// Several apps of one organisation under one platform dev: each app on its own port and
// `<appId>.localhost` name with its own database, and the organisation's {base_url} answering
// every app's owner API under its real id.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorFromResponse } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { addMember } from '../auth/helpers.ts';
import { headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ada = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';

const app = (name: string): Record<string, string> => ({
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: addNote
    entrypoint: functions/add-note.ts
    access: user
`,
  'migrations/001_notes.sql': `create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  body text not null
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
  'functions/add-note.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ body: s.string() }),
  handler: ({ input, data }) => data.table('notes').create({ body: '${name}: ' + input.body }),
});
`,
});

let root: { path: string; remove: () => Promise<void> };
let ws: WorkspaceServer;
const lines: string[] = [];

beforeAll(async () => {
  root = await tempDir('org-');
  await writeFiles(join(root.path, 'Notes'), app('notes'));
  await writeFiles(join(root.path, 'crm'), app('crm'));
  ws = await startWorkspace({
    appDirs: [join(root.path, 'Notes'), join(root.path, 'crm')],
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    authenticate: headerAuthenticate,
    organisation: 'Acme',
    logWriter: (line) => lines.push(line),
  });
}, 120_000);

afterAll(async () => {
  await ws?.close();
  await root?.remove();
});

/** Node resolves no `*.localhost`: it reaches an app at `localhost` on the app's own port. */
const local = (url: string) => url.replace(/\/\/[a-z0-9-]+\.localhost:/, '//localhost:');

describe('a workspace of two apps', { timeout: 60_000 }, () => {
  it('serves each app at its own name and port, with its own database', async () => {
    expect(ws.apps.map((one) => one.appId)).toEqual(['notes', 'crm']);
    const [notes, crm] = ws.apps;
    expect(notes?.url).toBe(`http://notes.localhost:${notes?.port}`);
    expect(crm?.url).toBe(`http://crm.localhost:${crm?.port}`);
    expect(notes?.port).not.toBe(crm?.port);
    for (const one of ws.apps) {
      const dir = join(root.path, one.appId === 'notes' ? 'Notes' : 'crm');
      expect((await stat(join(dir, '.platform', 'db'))).isDirectory()).toBe(true);
      const state = JSON.parse(await readFile(join(dir, '.platform', 'dev.json'), 'utf8'));
      expect(state).toMatchObject({ appId: one.appId, url: `http://localhost:${one.port}` });
    }
    const added = await fetch(`${local(notes!.url)}/_platform/api/functions/addNote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-user': ada },
      body: '{"body":"hello"}',
    });
    expect(added.status).toBe(200);
    const read = (url: string) =>
      fetch(`${local(url)}/rest/v1/notes?select=body`, { headers: { 'x-test-user': ada } }).then(
        (r) => r.json(),
      );
    expect(await read(notes!.url)).toEqual([{ body: 'notes: hello' }]);
    expect(await read(crm!.url)).toEqual([]);
    // The host name form reaches the same app (a browser's `notes.localhost`).
    const byName = await fetch(`${local(notes!.url)}/rest/v1/notes?select=body`, {
      headers: { 'x-test-user': ada, host: `notes.localhost:${notes!.port}` },
    });
    expect(byName.status).toBe(200);
  });

  it('answers every app’s jobs API on its real id at {base_url}', async () => {
    const auth = { authorization: `Bearer ${ws.devToken}` };
    const list = await fetch(`${ws.url}/v1/apps`, { headers: auth });
    expect(await list.json()).toEqual({
      apps: ws.apps.map((one) => ({ appId: one.appId, url: one.url })),
    });
    for (const id of ['notes', 'crm']) {
      const jobs = await fetch(`${ws.url}/v1/apps/${id}/jobs`, { headers: auth });
      expect(jobs.status).toBe(200);
      expect(await jobs.json()).toEqual({ jobs: [], nextCursor: null });
    }
    const unknown = await fetch(`${ws.url}/v1/apps/shop/jobs`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect((await errorFromResponse(unknown)).code).toBe('APP_NOT_FOUND');
    expect((await fetch(`${ws.url}/v1/apps`)).status).toBe(403);
    const page = await fetch(`${ws.url}/`);
    const html = await page.text();
    expect(html).toContain('Organisation Acme');
    for (const one of ws.apps) expect(html).toContain(one.url);
    expect(html).not.toContain(ws.devToken);
    // Members and roles only for the developer; every app's owner is one account.
    expect(html).not.toContain('Members');
    const members = await fetch(`${ws.url}/v1/organisation/members`, { headers: auth });
    expect(await members.json()).toEqual({
      members: [{ accountId: expect.any(String), email: 'owner@localhost', role: 'administrator' }],
    });
    expect((await fetch(`${ws.url}/v1/organisation/members`)).status).toBe(403);
    const withKey = await (await fetch(ws.dashboardUrl)).text();
    expect(withKey).toContain('<h2>Members</h2>');
    expect(withKey).toContain('owner@localhost');
  });

  it('shows and sets each app’s authority facts on the owner API, by member email', async () => {
    const auth = { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' };
    const crm = ws.app('crm')!;
    await addMember(crm.broker, 'pat@example.com', 'a long password');
    const facts = async () =>
      (await fetch(`${ws.url}/v1/apps/crm/authority`, { headers: auth })).json();
    // The configured owner is each app's first recorded owner.
    expect(await facts()).toEqual({
      appId: 'crm',
      owner: 'owner@localhost',
      visibility: 'public',
      open: 'anyone',
      use: { kind: 'organisation' },
      administer: { kind: 'accounts', accounts: [] },
      editors: [],
    });
    const put = (fact: string, body: unknown) =>
      fetch(`${ws.url}/v1/apps/crm/authority/${fact}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify(body),
      });
    expect((await put('owner', { account: 'pat@example.com' })).status).toBe(204);
    expect((await put('use', { kind: 'accounts', accounts: ['PAT@example.com'] })).status).toBe(
      204,
    );
    expect((await put('editors', { accounts: ['owner@localhost'] })).status).toBe(204);
    expect(await facts()).toEqual({
      appId: 'crm',
      owner: 'pat@example.com',
      visibility: 'public',
      open: 'anyone',
      use: { kind: 'accounts', accounts: ['pat@example.com'] },
      administer: { kind: 'accounts', accounts: [] },
      editors: ['owner@localhost'],
    });
    const [pat] = (
      await ws
        .app('crm')!
        .broker.central.query<{ id: string }>(
          `SELECT id FROM platform.accounts WHERE email = 'pat@example.com'`,
        )
    ).rows;
    expect(await ws.authority.mayEdit('crm', pat!.id)).toBe(true);
    // Bad input: nothing changes.
    const stranger = await put('use', { kind: 'accounts', accounts: ['who@example.com'] });
    expect((await errorFromResponse(stranger)).code).toBe('MEMBER_NOT_FOUND');
    expect((await errorFromResponse(await put('use', { kind: 'some' }))).code).toBe(
      'INVALID_REQUEST',
    );
    expect((await errorFromResponse(await put('colour', {}))).code).toBe('ROUTE_NOT_FOUND');
    const unknownApp = await fetch(`${ws.url}/v1/apps/shop/authority`, { headers: auth });
    expect((await errorFromResponse(unknownApp)).code).toBe('APP_NOT_FOUND');
    expect((await facts()).use).toEqual({ kind: 'accounts', accounts: ['pat@example.com'] });
  });

  it('refuses an app folder listed twice and two apps with one stored id', async () => {
    const dir = join(root.path, 'crm');
    await expect(startWorkspace({ appDirs: [dir, dir] })).rejects.toThrow('listed twice');
    const other = join(root.path, 'other');
    await writeFiles(other, { '.platform/app.json': '{"appId":"crm"}' });
    await expect(startWorkspace({ appDirs: [dir, other] })).rejects.toThrow(
      'has the app id "crm" of another app',
    );
  });
});

describe('a workspace on one PostgreSQL server', { timeout: 120_000 }, () => {
  it('gives each app a database of its own', async () => {
    const pg = await startPostgres();
    const dir = await tempDir('org-pg-');
    try {
      await writeFiles(join(dir.path, 'notes'), app('notes'));
      await writeFiles(join(dir.path, 'crm'), app('crm'));
      const pgWs = await startWorkspace({
        appDirs: [join(dir.path, 'notes'), join(dir.path, 'crm')],
        watch: false,
        databaseUrl: pg.url,
        authenticate: headerAuthenticate,
        logWriter: () => {},
      });
      try {
        const names = await Promise.all(
          pgWs.apps.map(async (one) => {
            const { rows } = await one.broker.db.query<{ name: string }>(
              'select current_database() as name',
            );
            return rows[0]?.name;
          }),
        );
        expect(names).toEqual(['platform_app_notes', 'platform_app_crm']);
        await pgWs.apps[0]?.broker.db.query("insert into notes (owner_id, body) values ($1, 'x')", [
          ada,
        ]);
        const count = async (i: number) =>
          (await pgWs.apps[i]?.broker.db.query('select * from notes'))?.rows.length;
        expect([await count(0), await count(1)]).toEqual([1, 0]);
      } finally {
        await pgWs.close();
      }
    } finally {
      await dir.remove();
      await pg.stop();
    }
  });
});
