import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';

// Database RPC (spec 2.2: an app access token acts as the owner for database RPCs) over real
// HTTP on loopback, with a private app, RLS on `notes`, and a real signed-in session.
const files = {
  'migrations/001_notes.sql': `
create table notes (id serial primary key, owner_id uuid not null default auth.uid(), body text not null);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create function notes_with(word text) returns setof notes language sql stable
  as $$ select * from notes where body like '%' || word || '%' order by id $$;
create function note_count() returns bigint language sql stable as $$ select count(*) from notes $$;
create function add_note(body text) returns notes language sql
  as $$ insert into notes (body) values (add_note.body) returning * $$;
create function closed() returns void language plpgsql
  as $$ begin raise exception 'Notes are closed for today'; end $$;
`,
};

let env: Awaited<ReturnType<typeof authBroker>>;
let appToken = '';
let sessionToken = '';
let ownerId = '';
let bobId = '';

const rpc = (name: string, body: unknown, bearer: string) =>
  fetch(`${env.broker.server.url}/rest/v1/rpc/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  env = await authBroker({ files });
  appToken = (await env.broker.auth.appTokens.issue('rpc')).token;
  await env.broker.auth.grantAccess('bob@example.com');
  const browser = FakeBrowser.overHttp(env.broker);
  await browser.signInByEmail('bob@example.com');
  const session = await browser.session();
  sessionToken = String(session.body.token);
  bobId = String((session.body.user as { id: string }).id);
  ownerId = (await env.broker.auth.owner()).id;
  await env.broker.db.query(
    'insert into notes (owner_id, body) values ($1, $2), ($3, $4), ($1, $5)',
    [ownerId, 'owner milk', bobId, 'bob milk', 'owner bread'],
  );
}, 120_000);
afterAll(() => env?.cleanup());

describe('POST /rest/v1/rpc/<function>', () => {
  it('runs a function as the app token owner under RLS: rows another user owns are invisible', async () => {
    const response = await rpc('notes_with', { word: 'milk' }, appToken);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      expect.objectContaining({ owner_id: ownerId, body: 'owner milk' }),
    ]);
    expect(await (await rpc('note_count', {}, appToken)).json()).toBe(2);
  });

  it('runs a function as a signed-in session under RLS', async () => {
    const response = await rpc('notes_with', { word: 'milk' }, sessionToken);
    expect(await response.json()).toEqual([
      expect.objectContaining({ owner_id: bobId, body: 'bob milk' }),
    ]);
    const added = await rpc('add_note', { body: 'bob eggs' }, sessionToken);
    expect(added.status).toBe(200);
    expect(await added.json()).toMatchObject({ owner_id: bobId, body: 'bob eggs' });
    expect(await (await rpc('note_count', {}, sessionToken)).json()).toBe(2);
    expect(await (await rpc('note_count', {}, appToken)).json()).toBe(2);
  });

  it('answers a clear error for a bad function name, bad arguments or a raised exception', async () => {
    const missing = await rpc('no_such_function', {}, appToken);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 'RPC_NOT_FOUND', details: { function: 'no_such_function' } },
    });
    const odd = await rpc('notes;drop', {}, appToken);
    expect(odd.status).toBe(404);
    expect(await odd.json()).toMatchObject({ error: { code: 'RPC_NOT_FOUND' } });
    const wrongArgs = await rpc('notes_with', { term: 'milk' }, appToken);
    expect(wrongArgs.status).toBe(404);
    expect((await wrongArgs.json()).error.message).toContain('(term)');
    const notObject = await rpc('notes_with', ['milk'], appToken);
    expect(notObject.status).toBe(400);
    expect(await notObject.json()).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    const raised = await rpc('closed', {}, appToken);
    expect(raised.status).toBe(400);
    expect(await raised.json()).toMatchObject({
      error: { code: 'RPC_FAILED', message: 'Notes are closed for today' },
    });
  });

  it('refuses a caller without credentials in a private app', async () => {
    const response = await fetch(`${env.broker.server.url}/rest/v1/rpc/note_count`, {
      method: 'POST',
    });
    expect(response.status).toBe(401);
  });
});

describe('POST /rest/v1/rpc/<function> in a public app without a session', () => {
  it('calls stable functions anonymously and asks for sign-in before one that may write', async () => {
    const open = await authBroker({ files, auth: { appId: 'open', visibility: 'public' } });
    try {
      const call = (name: string, body: unknown) =>
        fetch(`${open.broker.server.url}/rest/v1/rpc/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      // RLS shows an anonymous caller no notes.
      expect(await (await call('note_count', {})).json()).toBe(0);
      const write = await call('add_note', { body: 'spam' });
      expect(write.status).toBe(401);
      expect(await write.json()).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    } finally {
      await open.cleanup();
    }
  });
});
