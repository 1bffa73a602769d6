// `platform login --to <base_url>`, `whoami` and `logout` as a person runs them: the CLI in its
// own process against a running workspace's {base_url}, a real Secret Service (GNOME Keyring on a
// private D-Bus), and the person approving over HTTP in a browser signed in to the organisation.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { limits } from '@platform/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { decideRequest, FakeBrowser, TestClock } from '../auth/helpers.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { inviteToOrganisation } from '../helpers/organisation.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const root = resolve(import.meta.dirname, '../../../..');
const cliArgs = [
  '--conditions=@platform/source',
  '--import',
  'tsx',
  join(root, 'packages/broker/src/bin.ts'),
];

const appFiles = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
`,
};

let dir: { path: string; remove: () => Promise<void> };
let ws: WorkspaceServer;
let secrets: SecretService;
let browser: FakeBrowser;
const clock = new TestClock(Date.now());

/** The CLI in a process of its own, with only the private Secret Service's environment. */
function cli(args: string[], onLine: (line: string) => void = () => {}) {
  const child = spawn(process.execPath, [...cliArgs, ...args], {
    cwd: root,
    env: { ...secrets.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  const err: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    out.push(line);
    onLine(line);
  });
  createInterface({ input: child.stderr }).on('line', (line) => err.push(line));
  return new Promise<{ code: number | null; out: string; err: string }>((done) =>
    child.on('close', (code) => done({ code, out: out.join('\n'), err: err.join('\n') })),
  );
}

interface Asked {
  readonly approveUrl: string;
  readonly userCode: string;
}

/** Calls `act` once the CLI has printed the approval link and the code. */
const whenAsked = (act: (asked: Asked) => Promise<void>, done: Promise<void>[]) => {
  let approveUrl: string | undefined;
  return (line: string) => {
    approveUrl ??= /(http:\S+\/account-logins\/\S+)/.exec(line)?.[1];
    const userCode = /the code ([A-Z]{4}-[A-Z]{4})/.exec(line)?.[1];
    if (approveUrl !== undefined && userCode !== undefined) {
      done.push(act({ approveUrl, userCode }));
    }
  };
};

/** {base_url}'s approval link sends the browser to an app's page, where it is signed in. */
async function approvalPage(asked: Asked): Promise<Asked> {
  const sent = await fetch(asked.approveUrl, { redirect: 'manual' });
  expect(sent.status).toBe(302);
  const location = sent.headers.get('location') ?? '';
  expect(location).toBe(`${ws.apps[0]?.url}${new URL(asked.approveUrl).pathname}`);
  return { approveUrl: location, userCode: asked.userCode };
}

const approve = async (asked: Asked) => {
  const answer = await decideRequest(browser, await approvalPage(asked));
  expect(answer.status).toBe(200);
};

const account = () => `account/${ws.url}`;
const accountApi = (path: string, token: string, method = 'GET') =>
  fetch(`${ws.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  dir = await tempDir('login-');
  await writeFiles(join(dir.path, 'notes'), appFiles);
  await writeFiles(join(dir.path, 'crm'), appFiles);
  [secrets, ws] = await Promise.all([
    startSecretService(),
    startWorkspace({
      appDirs: [join(dir.path, 'notes'), join(dir.path, 'crm')],
      port: 0,
      watch: false,
      databaseUrl: '',
      snapshotPath: testSnapshotPath,
      organisation: 'Acme',
      clock,
      logWriter: () => undefined,
    }),
  ]);
  const notes = ws.apps[0];
  if (!notes) throw new Error('no app');
  browser = new FakeBrowser(notes.broker, notes.url);
  // Ada is a developer of the organisation: invited before she signs up.
  await inviteToOrganisation(notes.broker, 'ada@example.com');
  const signedIn = await browser.signInByEmail('ada@example.com');
  expect(signedIn.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await ws?.close();
  await secrets?.stop();
  await dir?.remove();
});

describe('platform login, whoami and logout', { timeout: 60_000 }, () => {
  it('signs in with the typed code, acts as the account, and logout revokes and forgets', async () => {
    const approvals: Promise<void>[] = [];
    const login = await cli(['login', '--to', ws.url], whenAsked(approve, approvals));
    await Promise.all(approvals);
    expect(login.code, login.err).toBe(0);
    const token = (await secrets.lookup(account())) ?? '';
    // The role the organisation gives the account, as its members list says.
    const members = await accountApi('/v1/organisation/members', token);
    expect(members.status).toBe(200);
    const role = (
      (await members.json()) as { members: { email: string; role: string }[] }
    ).members.find((one) => one.email === 'ada@example.com')?.role;
    expect(login.out).toContain(`Signed in to ${ws.url} as ada@example.com (${role} of Acme)`);
    expect(token).toMatch(/^plat_account_/);
    expect(`${login.out}${login.err}`).not.toContain(token);

    // One login kept: --to may be left out.
    const who = await cli(['whoami']);
    expect(who.code, who.err).toBe(0);
    expect(who.out).toBe(`ada@example.com\n${role} of Acme at ${ws.url}`);

    // The organisation API a member may read; the apps' owner API stays the dev token's.
    const apps = await accountApi('/v1/apps', token);
    expect(((await apps.json()) as { apps: unknown[] }).apps).toHaveLength(2);
    expect((await accountApi('/v1/apps/notes/authority', token)).status).toBeGreaterThanOrEqual(
      400,
    );
    const listed = await accountApi('/v1/account/credentials', token);
    expect(((await listed.json()) as { credentials: unknown[] }).credentials).toHaveLength(1);

    const out = await cli(['logout', '--to', `${ws.url}/`]);
    expect(out.code, out.err).toBe(0);
    expect(out.out).toContain('revoked and forgotten');
    expect(await secrets.lookup(account())).toBeUndefined();
    expect((await accountApi('/v1/account', token)).status).toBe(401);
    expect((await accountApi('/v1/organisation/members', token)).status).toBe(403);

    const after = await cli(['whoami']);
    expect(after.code).toBe(3);
    expect(after.err).toContain('Not signed in to any service');
  });

  it('whoami answers exit code 3 once the credential was revoked elsewhere', async () => {
    const approvals: Promise<void>[] = [];
    const login = await cli(
      ['login', '--to', ws.url, '--name', 'laptop'],
      whenAsked(approve, approvals),
    );
    await Promise.all(approvals);
    expect(login.code, login.err).toBe(0);
    const token = (await secrets.lookup(account())) ?? '';
    const me = (await (await accountApi('/v1/account', token)).json()) as {
      credential: { id: string };
    };
    // The person revokes it by its id (as from another terminal of theirs).
    const revoked = await accountApi(
      `/v1/account/credentials/${me.credential.id}`,
      token,
      'DELETE',
    );
    expect(revoked.status).toBe(200);

    const who = await cli(['whoami', '--to', ws.url]);
    expect(who.code).toBe(3);
    expect(who.err).toContain('refused the credential');
    expect(who.err).toContain('AUTH_REQUIRED');
    expect(who.err).not.toContain(token);

    const out = await cli(['logout']);
    expect(out.code, out.err).toBe(0);
    expect(await secrets.lookup(account())).toBeUndefined();
  });

  it('logging in again replaces the kept credential and revokes the one before', async () => {
    const login = async () => {
      const approvals: Promise<void>[] = [];
      const ran = await cli(['login', '--to', ws.url], whenAsked(approve, approvals));
      await Promise.all(approvals);
      expect(ran.code, ran.err).toBe(0);
      return (await secrets.lookup(account())) ?? '';
    };
    const first = await login();
    const second = await login();
    expect(second).not.toBe(first);
    expect((await accountApi('/v1/account', first)).status).toBe(401);
    expect((await accountApi('/v1/account', second)).status).toBe(200);
    expect((await cli(['logout'])).code).toBe(0);
  });

  it('refuses a wrong typed code and keeps nothing when the person declines', async () => {
    const approvals: Promise<void>[] = [];
    const login = await cli(
      ['login', '--to', ws.url],
      whenAsked(async (asked) => {
        const page = await approvalPage(asked);
        // A browser signed in nowhere is sent to sign in first.
        const notes = ws.apps[0];
        const stranger = new FakeBrowser(notes?.broker, notes?.url);
        const unsigned = await stranger.navigate(new URL(page.approveUrl).pathname);
        expect(unsigned.status).toBe(302);
        expect(unsigned.headers.get('location')).toContain('/_platform/auth');
        const wrong = await decideRequest(browser, page, 'approve', 'BCDF-GHJK');
        expect(wrong.status).toBe(400);
        expect(await wrong.text()).toContain('not the code of this request');
        const declined = await decideRequest(browser, page, 'decline');
        expect(declined.status).toBe(200);
      }, approvals),
    );
    await Promise.all(approvals);
    expect(login.code).toBe(1);
    expect(login.err).toContain('TOKEN_REQUEST_DENIED');
    expect(await secrets.lookup(account())).toBeUndefined();
  });

  it('gives up on a request nobody approved in time', async () => {
    const approvals: Promise<void>[] = [];
    let page: Asked | undefined;
    const login = await cli(
      ['login', '--to', ws.url],
      whenAsked(async (asked) => {
        page = await approvalPage(asked);
        clock.advance((limits.tokenRequestSeconds + 1) * 1000);
      }, approvals),
    );
    await Promise.all(approvals);
    expect(login.code).toBe(1);
    expect(login.err).toContain('TOKEN_REQUEST_EXPIRED');
    expect(await secrets.lookup(account())).toBeUndefined();
    // The approval page says so and offers nothing to approve.
    const late = await browser.navigate(new URL((page as Asked).approveUrl).pathname);
    const html = await late.text();
    expect(html).toContain('data-state="expired"');
    expect(html).not.toContain('id="approve"');
  });

  it('refuses a base URL the credential would travel to in the clear', async () => {
    const ran = await cli(['login', '--to', 'http://platform.example.com']);
    expect(ran.code).toBe(2);
    expect(ran.err).toContain('not https');
  });
});
