import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import {
  authBroker,
  decideRequest,
  FakeBrowser,
  field,
  MINUTE,
  writeDevStateFor,
} from './helpers.ts';

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
  await writeDevStateFor(env);
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

const OWNER = 'owner@localhost';
const pages = '/_platform/auth/access-tokens';

/** The owner signed in, in a browser of their own. */
const ownerBrowser = async () => {
  const browser = new FakeBrowser(env.broker);
  await browser.signInByEmail(OWNER);
  return browser;
};

/** Revealing a created token through its link: the review page, then the one reveal. */
const reveal = async (browser: FakeBrowser, revealUrl: string) => {
  const { pathname, search } = new URL(revealUrl);
  const review = await browser.navigate(`${pathname}${search}`);
  if (review.status !== 200) return { status: review.status, page: await review.text() };
  const page = await review.text();
  const form = { csrf: field(page, 'csrf'), secret: field(page, 'secret') };
  const revealed = await browser.request(`${pages}/reveal`, { form });
  return { status: revealed.status, page: await revealed.text() };
};

const tokenIn = (page: string) => /<code id="token">(plat_app_[\w-]{43})<\/code>/.exec(page)?.[1];

describe('app access tokens (spec 2.2)', () => {
  let token = '';

  it('platform app access-token create prints a reveal link, never a value', async () => {
    const created = await run([
      'app',
      'access-token',
      'create',
      '--name',
      'ci',
      '--app',
      env.appDir,
    ]);
    expect(created.code).toBe(0);
    const printed = created.out.join('\n');
    expect(printed).not.toMatch(/plat_app_/);
    const revealUrl = /(http:\S+\/reveal\?secret=\S+)/.exec(printed)?.[1] as string;
    expect(revealUrl.startsWith(env.broker.server.url)).toBe(true);
    const listed = await run(['app', 'access-token', 'list', '--app', env.appDir, '--json']);
    const [entry] = JSON.parse(listed.out.join('\n')).tokens;
    expect(entry).toMatchObject({ name: 'ci', state: 'awaiting_reveal', hint: null });

    // Nobody but the signed-in owner opens it; the review page shows no value.
    const anonymous = new FakeBrowser(env.broker);
    const { pathname, search } = new URL(revealUrl);
    const redirect = await anonymous.navigate(`${pathname}${search}`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toContain('/_platform/auth/sign-in?returnTo=');
    const bob = new FakeBrowser(env.broker);
    await bob.signInByEmail('bob@example.com');
    expect((await bob.navigate(`${pathname}${search}`)).status).toBe(403);
    const owner = await ownerBrowser();
    const review = await owner.navigate(`${pathname}${search}`);
    expect(review.status).toBe(200);
    expect(await review.text()).not.toMatch(/plat_app_/);

    const revealed = await reveal(owner, revealUrl);
    expect(revealed.status).toBe(200);
    token = tokenIn(revealed.page) as string;
    expect(token).toMatch(/^plat_app_[\w-]{43}$/);
    // Once: the link is spent, and the value is nowhere in the database.
    expect((await reveal(owner, revealUrl)).status).toBe(410);
    const after = await run(['app', 'access-token', 'list', '--app', env.appDir]);
    expect(after.out.join('\n')).toContain(`active  ${token.slice(0, 13)}…  ci`);
    const { rows } = await env.broker.db.query('select * from platform.app_tokens');
    expect(JSON.stringify(rows)).not.toContain(token.slice(9));
  });

  it('a reveal link runs out after 15 minutes, leaving a token without a value', async () => {
    const created = await run(['app', 'access-token', 'create', '--app', env.appDir, '--json']);
    const made = JSON.parse(created.out.join('\n'));
    env.clock.advance(16 * MINUTE);
    const owner = await ownerBrowser();
    const late = await reveal(owner, made.revealUrl);
    expect(late.status).toBe(410);
    expect(late.page).toContain('This link has expired');
    const listed = await run(['app', 'access-token', 'list', '--app', env.appDir, '--json']);
    const entry = JSON.parse(listed.out.join('\n')).tokens.find(
      (t: { id: string }) => t.id === made.id,
    );
    expect(entry).toMatchObject({ state: 'reveal_expired', hint: null, revealExpiresAt: null });
    expect((await run(['app', 'access-token', 'revoke', made.id, '--app', env.appDir])).code).toBe(
      0,
    );
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
      `/v1/apps/${env.broker.appId}/tokens`,
      `/v1/apps/${env.broker.appId}/access`,
      `/v1/apps/${env.broker.appId}/outbox`,
    ]) {
      const response = await fetch(`${env.broker.server.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(403);
    }
    for (const path of [
      `/v1/apps/${env.broker.appId}/tokens`,
      `/v1/apps/${env.broker.appId}/tokens/requests`,
    ]) {
      const create = await fetch(`${env.broker.server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(create.status).toBe(403);
    }
  });

  it('are revalidated on every request: revoked means refused at once', async () => {
    const listed = await run(['app', 'access-token', 'list', '--app', env.appDir, '--json']);
    const entry = JSON.parse(listed.out.join('\n')).tokens.find(
      (t: { state: string }) => t.state === 'active',
    );
    expect(entry.lastUsedAt).not.toBeNull();
    expect((await run(['app', 'access-token', 'revoke', entry.id, '--app', env.appDir])).code).toBe(
      0,
    );
    const response = await fetch(`${env.broker.server.url}/rest/v1/notes`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
  });

  it('the owner API refuses requests without the dev token', async () => {
    expect(
      (await fetch(`${env.broker.server.url}/v1/apps/${env.broker.appId}/tokens`)).status,
    ).toBe(403);
    const wrong = await fetch(`${env.broker.server.url}/v1/apps/${env.broker.appId}/access`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(403);
  });
});

describe('app access tokens requested from a terminal', () => {
  const api = (path: string, body: unknown) =>
    fetch(`${env.broker.server.url}/v1/apps/${env.broker.appId}/tokens${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${env.broker.auth.brokerKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
  const ask = async (name: string) => {
    const response = await api('/requests', { name });
    expect(response.status).toBe(201);
    return (await response.json()) as {
      id: string;
      userCode: string;
      approveUrl: string;
      claimSecret: string;
    };
  };
  const claim = async (id: string, secret: string) => {
    const response = await api(`/requests/${id}/claim`, { secret });
    const body = await response.json();
    return { status: response.status, body, code: body.error?.code as string | undefined };
  };

  it('the owner compares the code and approves; the token is handed out once', async () => {
    const asked = await ask('agent');
    expect(asked.userCode).toMatch(/^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$/);
    expect(await claim(asked.id, asked.claimSecret)).toMatchObject({
      status: 202,
      body: { state: 'pending' },
    });
    const owner = await ownerBrowser();
    const path = new URL(asked.approveUrl).pathname;
    // Opening the page asks for the code (it does not show it) and approves nothing.
    const page = await (await owner.navigate(path)).text();
    expect(page).toContain('name="code"');
    expect(page).not.toContain(asked.userCode);
    expect((await claim(asked.id, asked.claimSecret)).status).toBe(202);
    // A code typed wrong, or none, approves nothing and says why; the request stays pending.
    for (const typed of ['', 'BCDF-GHJK', asked.userCode.slice(0, 4)]) {
      if (typed === asked.userCode) continue;
      const refused = await decideRequest(owner, asked, 'approve', typed);
      expect(refused.status, typed).toBe(400);
      expect(await refused.text()).toContain('not the code of this request');
      expect((await claim(asked.id, asked.claimSecret)).status).toBe(202);
    }
    // Typed as a person would: lower case, without the dash.
    const approved = await decideRequest(
      owner,
      asked,
      'approve',
      asked.userCode.toLowerCase().replace('-', ' '),
    );
    expect(await approved.text()).toContain('data-state="approved"');
    const taken = await claim(asked.id, asked.claimSecret);
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({
      state: 'approved',
      info: { name: 'agent', state: 'active' },
    });
    const works = await fetch(`${env.broker.server.url}/rest/v1/notes?select=body`, {
      headers: { authorization: `Bearer ${taken.body.token}` },
    });
    expect(works.status).toBe(200);
    expect(await claim(asked.id, asked.claimSecret)).toMatchObject({
      status: 410,
      code: 'TOKEN_REQUEST_EXPIRED',
    });
    const { rows } = await env.broker.db.query('select * from platform.app_token_requests');
    expect(JSON.stringify(rows)).not.toContain(asked.claimSecret);
  });

  it('a declined, expired or unknown request gives no token', async () => {
    const owner = await ownerBrowser();
    const declined = await ask('declined');
    // Declining needs no code.
    await decideRequest(owner, declined, 'decline', '');
    expect(await claim(declined.id, declined.claimSecret)).toMatchObject({
      status: 403,
      code: 'TOKEN_REQUEST_DENIED',
    });
    // A decision once made stays.
    const csrf = await owner.csrf();
    await owner.request(new URL(declined.approveUrl).pathname, {
      form: { csrf, decision: 'approve' },
    });
    expect((await claim(declined.id, declined.claimSecret)).code).toBe('TOKEN_REQUEST_DENIED');

    const late = await ask('late');
    env.clock.advance(11 * MINUTE);
    const page = await (await owner.navigate(new URL(late.approveUrl).pathname)).text();
    expect(page).toContain('data-state="expired"');
    expect(await claim(late.id, late.claimSecret)).toMatchObject({
      status: 410,
      code: 'TOKEN_REQUEST_EXPIRED',
    });
    const asked = await ask('guessed');
    expect(await claim(asked.id, 'not the secret')).toMatchObject({
      status: 404,
      code: 'TOKEN_REQUEST_NOT_FOUND',
    });
    expect((await claim(asked.id, 42 as unknown as string)).code).toBe('INVALID_INPUT');
    expect((await api('/requests', { name: '' })).status).toBe(400);
  });

  it("only the signed-in owner decides, with the page's form token", async () => {
    const asked = await ask('guarded');
    const path = new URL(asked.approveUrl).pathname;
    const bob = new FakeBrowser(env.broker);
    await bob.signInByEmail('bob@example.com');
    expect((await bob.navigate(path)).status).toBe(403);
    expect((await bob.request(path, { form: { csrf: 'x', decision: 'approve' } })).status).toBe(
      403,
    );
    const owner = await ownerBrowser();
    await owner.navigate(path);
    expect(
      (await owner.request(path, { form: { csrf: 'forged', decision: 'approve' } })).status,
    ).toBe(403);
    expect((await claim(asked.id, asked.claimSecret)).status).toBe(202);
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
    expect((await run(['app', 'access-token', 'revoke'])).code).toBe(2);
    expect((await run(['app', 'access-token', 'print'])).code).toBe(2);
    const missing = await run(['access', 'list', '--app', '/nonexistent']);
    expect(missing.code).toBe(1);
    expect(missing.err[0]).toContain('No platform dev is running');
  });
});
