// The developer's tools against `platform dev` of a PRIVATE app (examples/private-notes, with
// sign-in, no test identity): the CLI reaches the control plane with the dev token of
// .platform/dev.json; the dashboard opens for the signed-in owner and through the dev-token
// link; app access tokens, access JWTs and other accounts never reach it.
import { errorFromResponse } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { main } from '../../src/cli/main.ts';
import { readDevState } from '../../src/project/dev-state.ts';
import { addMember, FakeBrowser } from '../auth/helpers.ts';
import { ada, privateNotesDev } from './helpers.ts';

const PAT = 'pat@example.com';
const PASSWORD = 'a long password';

let app: { path: string; remove: () => Promise<void> };
// Control-plane paths: the developer's and the owner's only.
const paths = () => [
  `/v1/apps/${dev.broker.appId}/jobs`,
  `/v1/apps/${dev.broker.appId}/cron`,
  `/v1/apps/${dev.broker.appId}/authority`,
  `/v1/apps/${dev.broker.appId}/outbox`,
  `/v1/apps/${dev.broker.appId}/tokens`,
  `/v1/apps/${dev.broker.appId}/access`,
  `/v1/apps/${dev.broker.appId}/agents`,
  `/v1/apps/${dev.broker.appId}/ai/calls`,
  `/v1/apps/${dev.broker.appId}/push/deliveries`,
  '/v1/platform-administrators',
  // The old prefix answers ROUTE_MOVED, but only to whoever the control plane admits.
  '/_platform/broker/outbox',
  '/v1/organisation/members',
  '/_platform/dashboard',
];
let dev: DevServer;
let devToken = '';
const printed: string[] = [];

const cli = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...args, '--app', app.path], {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    cwd: app.path,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${dev.url}${path}`, { headers });

beforeAll(async () => {
  ({ app, dev } = await privateNotesDev(PAT, PASSWORD, printed));
  devToken = (await readDevState(app.path))?.token ?? '';
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

describe('the CLI on a private app (dev token)', { timeout: 60_000 }, () => {
  it('platform invoke, outbox, jobs and cron', async () => {
    const added = await cli('invoke', 'addNote', '{"note":"from the CLI"}', '--user', ada);
    expect(added).toMatchObject({ code: 0 });
    expect(JSON.parse(added.out)).toEqual({ user: { id: ada }, notes: ['from the CLI'] });
    expect(JSON.parse((await cli('invoke', 'tidy')).out)).toEqual({ notes: 1 });
    expect(await cli('outbox')).toMatchObject({ code: 0, out: 'The outbox is empty.' });
    expect(await cli('cron', 'list')).toMatchObject({
      code: 0,
      out: expect.stringContaining('tidy'),
    });
    const run = await cli('cron', 'run', 'tidy', '--wait');
    expect(run).toMatchObject({ code: 0, out: expect.stringContaining('tidy') });
    const jobs = await cli('jobs', '--json');
    expect(jobs.code).toBe(0);
    expect(JSON.parse(jobs.out)).toMatchObject({ jobs: expect.any(Array) });
  });

  it('platform app authority shows and sets who may Use, Administer and Edit', async () => {
    const shown = await cli('app', 'authority');
    expect(shown).toMatchObject({ code: 0 });
    // The configured owner is the app's first recorded owner.
    expect(shown.out).toContain('Owner:       owner@localhost');
    expect(shown.out).toContain(
      'Use:         the whole organisation (and administrators): its integrations',
    );
    // Who may open this private app is its own line, in the words of the page that refuses an
    // account without a grant: the Use audience admits nobody to the app itself.
    expect(shown.out).toContain(
      'Open:        the owner and confirmed accounts granted access (platform access grant <email>; platform access list)',
    );
    await addMember(dev.broker, 'member@example.com', PASSWORD);
    const member = new FakeBrowser(dev.broker);
    await member.signInByPassword('member@example.com', PASSWORD);
    const refused = await member.navigate('/');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('platform access grant member@example.com');
    expect(await cli('app', 'authority', 'set', 'owner', PAT)).toMatchObject({ code: 0 });
    expect(await cli('app', 'authority', 'set', 'use', PAT)).toMatchObject({ code: 0 });
    expect(await cli('app', 'authority', 'set', 'editors', 'none')).toMatchObject({ code: 0 });
    expect(JSON.parse((await cli('app', 'authority', '--json')).out)).toEqual({
      appId: dev.appId,
      owner: PAT,
      visibility: 'private',
      open: 'granted',
      use: { kind: 'accounts', accounts: [PAT] },
      administer: { kind: 'accounts', accounts: [] },
      editors: [],
    });
    // Handing the app back: the tests below sign in as owner@localhost, its owner.
    expect(await cli('app', 'authority', 'set', 'owner', 'owner@localhost')).toMatchObject({
      code: 0,
    });
    const stranger = await cli('app', 'authority', 'set', 'use', 'who@example.com');
    expect(stranger.code).not.toBe(0);
    expect(stranger.err).toContain('MEMBER_NOT_FOUND');
    expect((await cli('app', 'authority', 'set', 'colour', 'red')).err).toContain('unknown fact');
  });

  it('platform access and platform app access-token', async () => {
    expect(await cli('access', 'grant', 'ada@example.com')).toMatchObject({ code: 0 });
    expect((await cli('access', 'list')).out).toContain('ada@example.com');
    expect(await cli('access', 'revoke', 'ada@example.com')).toMatchObject({ code: 0 });
    const created = await cli('app', 'access-token', 'create', '--name', 'ci', '--json');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.out) as { id: string };
    expect((await cli('app', 'access-token', 'list')).out).toContain(id);
    expect(await cli('app', 'access-token', 'revoke', id)).toMatchObject({ code: 0 });
  });
});

describe('who else reaches the control plane', { timeout: 60_000 }, () => {
  it('nobody without a credential, and not an app access token', async () => {
    for (const path of paths()) expect((await get(path)).status, path).toBe(403);
    const { token } = await dev.broker.auth.appTokens.issue('ci');
    // The token works on the runtime (it acts as the owner) ...
    const call = await fetch(`${dev.url}/_platform/api/functions/addNote`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"note":"by token"}',
    });
    expect(call.status).toBe(200);
    // ... and never on the control plane.
    for (const path of paths()) {
      const response = await get(path, { authorization: `Bearer ${token}` });
      expect(response.status, path).toBe(403);
      expect((await errorFromResponse(response)).code).toBe('PERMISSION_DENIED');
    }
    const invoke = await fetch(`${dev.url}/v1/apps/${dev.broker.appId}/invoke/tidy`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(invoke.status).toBe(403);
    // Nor does mail injection (platform mail receive) open to anyone but the developer.
    for (const authorization of [`Bearer ${token}`, undefined]) {
      const inject = await fetch(`${dev.url}/v1/apps/${dev.broker.appId}/mail/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822', ...(authorization ? { authorization } : {}) },
        body: 'From: a@example.com\r\nSubject: x\r\n\r\nx\r\n',
      });
      expect(inject.status).toBe(403);
    }
    expect(
      (await get(`/v1/apps/${dev.broker.appId}/jobs`, { authorization: 'Bearer nope' })).status,
    ).toBe(403);
  });

  it('not a granted account that is not the owner, nor the owner by access JWT', async () => {
    const pat = new FakeBrowser(dev.broker);
    expect((await pat.signInByPassword(PAT, PASSWORD)).status).toBe(303);
    expect((await pat.navigate('/')).status).toBe(200);
    for (const path of paths()) expect((await pat.request(path)).status, path).toBe(403);

    const owner = new FakeBrowser(dev.broker);
    await owner.signInByEmail('owner@localhost');
    const { body } = await owner.session();
    for (const path of paths()) {
      const response = await owner.request(path, {
        headers: { authorization: `Bearer ${String(body.token)}` },
      });
      expect(response.status, path).toBe(403);
    }
  });
});

describe('the organisation from the command line', { timeout: 60_000 }, () => {
  it('platform org: only administrators change roles, never leaving none', async () => {
    const members = JSON.parse((await cli('org', 'members', '--json')).out) as {
      members: { email: string; role: string }[];
    };
    expect(members.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'owner@localhost', role: 'administrator' }),
        expect.objectContaining({ email: PAT, role: 'member' }),
      ]),
    );
    const forbidden = await cli('org', 'role', PAT, 'administrator', '--as', PAT);
    expect(forbidden.err).toContain('ROLE_CHANGE_FORBIDDEN');
    expect(await cli('org', 'role', PAT, 'administrator', '--as', 'owner@localhost')).toMatchObject(
      { code: 0, out: `${PAT} is now administrator.` },
    );
    expect(await cli('org', 'role', PAT, 'member', '--as', PAT)).toMatchObject({ code: 0 });
    const last = await cli('org', 'remove', 'owner@localhost', '--as', 'owner@localhost');
    expect(last.err).toContain('LAST_ADMINISTRATOR');
    const unknown = await cli(
      'org',
      'role',
      'who@example.com',
      'member',
      '--as',
      'owner@localhost',
    );
    expect(unknown.err).toContain('MEMBER_NOT_FOUND');
    expect((await cli('org', 'role', PAT, 'member')).code).not.toBe(0);
    expect((await cli('org', 'members')).out).toContain('owner@localhost  administrator');
  });

  it('platform org invite: an administrator invites, a member cannot', async () => {
    const refused = await cli('org', 'invite', 'new@example.com', '--as', PAT);
    expect(refused.err).toContain('ROLE_CHANGE_FORBIDDEN');
    const invited = await cli('org', 'invite', 'New@Example.com', '--as', 'owner@localhost');
    expect(invited).toMatchObject({ code: 0 });
    expect(invited.out).toMatch(
      /^new@example\.com is invited until \d{4}-\d\d-\d\dT[\d:.]+Z: an invitation email is on its way/,
    );
    expect(await cli('org', 'invite', PAT, '--as', 'owner@localhost')).toMatchObject({
      code: 0,
      out: `${PAT} is a member of the organisation already.`,
    });
    expect((await cli('org', 'invite', 'new@example.com')).code).not.toBe(0);
  });
});

describe('the owner acting in the console', { timeout: 60_000 }, () => {
  it('acts as the signed-in owner only, never with another member’s authority', async () => {
    // A member who owns the app, and is no administrator of the organisation.
    expect(await cli('app', 'authority', 'set', 'owner', PAT)).toMatchObject({ code: 0 });
    try {
      const pat = new FakeBrowser(dev.broker);
      expect((await pat.signInByPassword(PAT, PASSWORD)).status).toBe(303);
      const { csrf } = (await (await pat.request('/_platform/dashboard/session')).json()) as {
        csrf: string;
      };
      const change = (path: string, method: string, body: unknown) =>
        pat.request(path, { method, headers: { 'x-platform-csrf': csrf }, json: body });
      // Naming an administrator as the one acting would make the owner an administrator.
      const promoted = await change(`/v1/organisation/members/${PAT}/role`, 'PUT', {
        role: 'administrator',
        actingAs: 'owner@localhost',
      });
      expect(promoted.status).toBe(403);
      expect((await errorFromResponse(promoted)).code).toBe('PERMISSION_DENIED');
      const invited = await change('/v1/organisation/members', 'POST', {
        email: 'friend@example.com',
        actingAs: 'owner@localhost',
      });
      expect((await errorFromResponse(invited)).code).toBe('PERMISSION_DENIED');
      // Acting as themselves, the organisation's own rules answer.
      const own = await change(`/v1/organisation/members/${PAT}/role`, 'PUT', {
        role: 'administrator',
        actingAs: PAT,
      });
      expect((await errorFromResponse(own)).code).toBe('ROLE_CHANGE_FORBIDDEN');
      expect((await cli('org', 'members')).out).toContain(`${PAT}  member`);
    } finally {
      expect(await cli('app', 'authority', 'set', 'owner', 'owner@localhost')).toMatchObject({
        code: 0,
      });
    }
  });
});

describe('a platform administrator', { timeout: 60_000 }, () => {
  it('opens the private app for review with their own identity, without owner control', async () => {
    const REVIEWER = 'rev@example.com';
    await addMember(dev.broker, REVIEWER, PASSWORD);
    const rev = new FakeBrowser(dev.broker);
    expect((await rev.signInByPassword(REVIEWER, PASSWORD)).status).toBe(303);
    expect((await rev.navigate('/')).status).toBe(403);

    expect(await cli('admins', 'add', REVIEWER)).toMatchObject({ code: 0 });
    expect(await cli('admins', 'list')).toMatchObject({ code: 0, out: REVIEWER });
    expect(JSON.parse((await cli('admins', 'list', '--json')).out)).toEqual({
      administrators: [REVIEWER],
    });
    expect((await rev.navigate('/')).status).toBe(200);
    const { body } = await rev.session();
    expect(body.user).toMatchObject({ email: REVIEWER });
    // No owner control: the dashboard, the broker API and the owner API stay closed.
    for (const path of paths()) expect((await rev.request(path)).status, path).toBe(403);

    const stranger = await cli('admins', 'add', 'who@example.com');
    expect(stranger.err).toContain('MEMBER_NOT_FOUND');
    expect(await cli('admins', 'remove', REVIEWER)).toMatchObject({ code: 0 });
    expect((await rev.navigate('/')).status).toBe(403);
    expect(await cli('admins', 'list')).toMatchObject({ out: 'No platform administrators.' });
  });
});

describe('the dashboard', { timeout: 60_000 }, () => {
  it('opens for the signed-in owner; the session cookie never changes anything', async () => {
    const nobody = new FakeBrowser(dev.broker);
    const away = await nobody.navigate('/_platform/dashboard');
    expect(away.status).toBe(302);
    expect(away.headers.get('location')).toMatch(/^\/_platform\/auth\/sign-in\?returnTo=/);

    const owner = new FakeBrowser(dev.broker);
    await owner.signInByEmail('owner@localhost');
    const page = await owner.navigate('/_platform/dashboard');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`/v1/apps/${dev.broker.appId}/jobs`);
    expect((await owner.request(`/v1/apps/${dev.broker.appId}/jobs`)).status).toBe(200);
    expect((await owner.request(`/v1/apps/${dev.broker.appId}/cron`)).status).toBe(200);
    expect((await owner.request(`/v1/apps/${dev.broker.appId}/outbox`)).status).toBe(200);
    const post = await owner.request(`/v1/apps/${dev.broker.appId}/cron/tidy/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(post.status).toBe(403);
  });

  it('opens through the dashboard link that platform dev prints, which holds no token', async () => {
    const key = new URL(dev.dashboardUrl).searchParams.get('key') ?? '';
    expect(key).not.toContain(devToken);
    const wrong = new FakeBrowser(dev.broker);
    expect((await wrong.navigate('/_platform/dashboard?key=nope')).status).toBe(403);
    // The dev token itself is no dashboard key, and the key is no bearer credential.
    expect((await wrong.navigate(`/_platform/dashboard?key=${devToken}`)).status).toBe(403);
    expect(wrong.cookie('platform_dev')).toBeUndefined();
    const asBearer = await get(`/v1/apps/${dev.broker.appId}/jobs`, {
      authorization: `Bearer ${key}`,
    });
    expect(asBearer.status).toBe(403);

    const browser = new FakeBrowser(dev.broker);
    const link = await browser.navigate(`/_platform/dashboard?key=${key}`);
    expect(link.status).toBe(303);
    expect(link.headers.get('location')).toBe('/_platform/dashboard');
    const [cookie] = link.headers.getSetCookie();
    expect(cookie).toMatch(/^platform_dev=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    // The cookie is an HMAC of the token, not the token.
    expect(cookie).not.toContain(devToken);
    expect((await browser.navigate('/_platform/dashboard')).status).toBe(200);
    expect((await browser.request(`/v1/apps/${dev.broker.appId}/jobs/summary`)).status).toBe(200);
    // GET and HEAD only: a cookie never authorises a state change.
    const post = await browser.request(`/v1/apps/${dev.broker.appId}/cron/tidy/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(post.status).toBe(403);
    // It opens the control plane only, not the private app itself.
    expect((await browser.navigate('/')).status).toBe(302);
  });
});
