// Every HTML page of the broker, whichever feature renders it, sends the same security headers:
// the sign-in pages, the account page, the organisation page and the dashboard.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrgFront } from '../../src/app/org-front.ts';
import { AgentCredentials } from '../../src/auth/agent-credentials.ts';
import type { Database } from '../../src/db/database.ts';
import type { RunningServer } from '../../src/http/serve.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';
import { brokerFor } from '../helpers/broker.ts';
import { openTestCentral } from '../helpers/db.ts';

let signIn: Awaited<ReturnType<typeof authBroker>>;
let plain: Awaited<ReturnType<typeof brokerFor>>;
let central: Database;
let org: RunningServer;

beforeAll(async () => {
  signIn = await authBroker({ auth: { visibility: 'public' } });
  plain = await brokerFor({});
  central = await openTestCentral();
  org = await startOrgFront({
    organisation: 'Acme',
    apps: () => [],
    devToken: 'dev-token-of-the-test',
    members: new Memberships(central),
    agentCredentials: new AgentCredentials(central, systemClock),
    central,
    clock: systemClock,
    port: 0,
    print: () => undefined,
  });
}, 120_000);

afterAll(async () => {
  await org?.close();
  await central?.close();
  await plain?.cleanup();
  await signIn?.cleanup();
});

/** The headers every page must send; the CSP's nonce differs per response. */
function expectPageHeaders(response: Response): void {
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('referrer-policy')).toBe('same-origin');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  const csp = response.headers.get('content-security-policy') ?? '';
  const directives = Object.fromEntries(
    csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
  );
  expect(directives).toEqual({
    'default-src': "'none'",
    'script-src': expect.stringMatching(/^'nonce-[\w-]{16}'$/),
    'style-src': directives['script-src'],
    'connect-src': "'self'",
    'form-action': expect.stringMatching(/^('self'|'none')$/),
    'frame-ancestors': "'none'",
    'base-uri': "'none'",
  });
}

describe('the security headers of every broker page', { timeout: 60_000 }, () => {
  it('the sign-in page, the page that waits for the link, a stale form and the account page', async () => {
    const browser = new FakeBrowser(signIn.broker);
    const page = await browser.navigate('/_platform/auth/sign-in');
    expect(page.status).toBe(200);
    expectPageHeaders(page);
    const csrf = await browser.csrf();
    const waiting = await browser.request('/_platform/auth/email-link', {
      form: { email: 'ada@example.com', returnTo: '/', csrf },
    });
    expect(waiting.status).toBe(200);
    expectPageHeaders(waiting);
    // The page's polling script carries the nonce of its own response's policy.
    const nonce = /'nonce-([\w-]+)'/.exec(waiting.headers.get('content-security-policy') ?? '');
    expect(await waiting.text()).toContain(`<script nonce="${nonce?.[1]}">`);
    const stale = await browser.request('/_platform/auth/email-link', {
      form: { email: 'ada@example.com', returnTo: '/', csrf: 'not-the-token' },
    });
    expect(stale.status).toBe(403);
    expectPageHeaders(stale);
    await browser.signInByEmail('ada@example.com');
    const account = await browser.navigate('/_platform/auth/account');
    expect(account.status).toBe(200);
    expectPageHeaders(account);
  });

  it('the organisation page, which posts nothing', async () => {
    const page = await fetch(`${org.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Organisation Acme');
    expectPageHeaders(page);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'none'");
  });

  it('the dashboard, whose script file carries the page nonce', async () => {
    const page = await plain.broker.app.request('/_platform/dashboard');
    expect(page.status).toBe(200);
    expectPageHeaders(page);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'none'");
    const nonce = /'nonce-([\w-]+)'/.exec(page.headers.get('content-security-policy') ?? '');
    expect(await page.text()).toContain(
      `<script nonce="${nonce?.[1]}" src="/_platform/dashboard/dashboard.js">`,
    );
  });
});

describe('the page kit', () => {
  it('is the only place in the broker that answers HTML', async () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const answering: string[] = [];
    for (const file of files) {
      const text = await readFile(join(src, file), 'utf8');
      // `c.html(...)` or a hand-set HTML content type bypass the kit's headers.
      if (/\bc\.html\(|['"]content-type['"]\s*[:,]\s*['"]text\/html/.test(text)) {
        answering.push(relative(src, join(src, file)));
      }
    }
    expect(answering).toEqual(['pages/page-security.ts']);
  });
});
