import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { authBroker, FakeBrowser } from './helpers.ts';

const files = {
  'migrations/001_notes.sql': `
create table notes (id uuid primary key default gen_random_uuid(), owner_id uuid not null default auth.uid(), body text);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
  'functions/who/who.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => ({ user: ctx.user, rows: await ctx.data.table('notes').list({ select: ['body'] }) }),
});
`,
};

let env: Awaited<ReturnType<typeof authBroker>>;
let other: Awaited<ReturnType<typeof authBroker>>;
const run = async (args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    cwd: env.appDir,
  });
  return { code, out, err };
};

beforeAll(async () => {
  env = await authBroker({ files });
  other = await authBroker({ files, auth: { appId: 'other' } });
  await env.broker.addFunction({ name: 'who', entrypoint: 'functions/who/who.ts', access: 'user' });
  // What platform dev writes for the CLI (this test process stands in for it).
  await writeFile(
    join(env.appDir, '.platform', 'dev.json'),
    JSON.stringify({
      url: env.broker.server.url,
      appId: env.broker.appId,
      pid: process.pid,
      token: env.broker.auth.brokerKey,
    }),
    { mode: 0o600 },
  );
  const owner = await env.broker.auth.owner();
  await env.broker.db.query('insert into notes (owner_id, body) values ($1, $2)', [
    owner.id,
    'owner note',
  ]);
}, 120_000);
afterAll(async () => {
  await env?.cleanup();
  await other?.cleanup();
});

describe('app access tokens (spec 2.2)', () => {
  let token = '';

  it('are created by platform token create, shown once, with the plat_app_ prefix', async () => {
    const created = await run(['token', 'create', '--name', 'ci', '--app', env.appDir]);
    expect(created.code).toBe(0);
    token = created.out[1] as string;
    expect(token).toMatch(/^plat_app_[\w-]{43}$/);
    const listed = await run(['token', 'list', '--app', env.appDir]);
    expect(listed.out.join('\n')).toContain('ci');
    expect(listed.out.join('\n')).not.toContain(token);
    const { rows } = await env.broker.db.query<{ token_hash: string }>(
      'select token_hash from platform.app_tokens',
    );
    expect(rows.map((r) => r.token_hash)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(token.slice(12));
  });

  it('act as the owner for RLS (REST) and Functions', async () => {
    const headers = { authorization: `Bearer ${token}` };
    const rest = await fetch(`${env.broker.server.url}/rest/v1/notes?select=body`, { headers });
    expect(await rest.json()).toEqual([{ body: 'owner note' }]);
    const fn = await fetch(`${env.broker.server.url}/_platform/api/functions/who`, {
      method: 'POST',
      headers,
    });
    const owner = await env.broker.auth.owner();
    expect(await fn.json()).toEqual({
      result: { user: { id: owner.id }, rows: [{ body: 'owner note' }] },
    });
  });

  it('are refused by another app', async () => {
    const response = await fetch(`${other.broker.server.url}/rest/v1/notes`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
  });

  it('are refused for anything control-plane', async () => {
    for (const path of [
      '/_platform/broker/tokens',
      '/_platform/broker/access',
      '/_platform/broker/outbox',
    ]) {
      const response = await fetch(`${env.broker.server.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(403);
    }
    const create = await fetch(`${env.broker.server.url}/_platform/broker/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(create.status).toBe(403);
  });

  it('are revalidated on every request: revoked means refused at once', async () => {
    const listed = await run(['token', 'list', '--app', env.appDir, '--json']);
    const [entry] = JSON.parse(listed.out.join('\n')).tokens;
    expect(entry.lastUsedAt).not.toBeNull();
    expect((await run(['token', 'revoke', entry.id, '--app', env.appDir])).code).toBe(0);
    const response = await fetch(`${env.broker.server.url}/rest/v1/notes`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
  });

  it('the owner API refuses requests without the dev token', async () => {
    expect((await fetch(`${env.broker.server.url}/_platform/broker/tokens`)).status).toBe(403);
    const wrong = await fetch(`${env.broker.server.url}/_platform/broker/access`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(403);
  });
});

describe('platform access grant|revoke|list', () => {
  it('grants and revokes access to the private app', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.signInByEmail('bob@example.com');
    expect((await browser.session()).status).toBe(403);
    const granted = await run(['access', 'grant', 'Bob@Example.com', '--app', env.appDir]);
    expect(granted).toMatchObject({ code: 0, out: ['Granted bob@example.com access.'] });
    expect((await browser.session()).status).toBe(200);
    expect((await run(['access', 'list', '--app', env.appDir])).out[0]).toMatch(/^bob@example.com/);
    expect((await run(['access', 'revoke', 'bob@example.com', '--app', env.appDir])).code).toBe(0);
    expect((await browser.session()).status).toBe(403);
  });

  it('explains usage mistakes and a missing platform dev', async () => {
    expect((await run(['access', 'grant'])).code).toBe(2);
    expect((await run(['token', 'revoke'])).code).toBe(2);
    const missing = await run(['access', 'list', '--app', '/nonexistent']);
    expect(missing.code).toBe(1);
    expect(missing.err[0]).toContain('No platform dev is running');
  });
});
