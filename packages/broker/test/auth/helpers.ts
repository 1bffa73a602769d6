import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { type Broker, type BrokerOptions, startBroker } from '../../src/app/start-broker.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import type { AuthOptions } from '../../src/auth/auth-options.ts';
import { hashPassword } from '../../src/auth/passwords.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { inviteToOrganisation } from '../helpers/organisation.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** A clock tests move by hand. */
export class TestClock {
  #ms: number;
  constructor(start = Date.parse('2025-01-01T00:00:00Z')) {
    this.#ms = start;
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A broker with sign-in (no test identity), a test clock and captured output. */
export async function authBroker(
  options: {
    auth?: AuthOptions;
    files?: Record<string, string>;
    clock?: TestClock;
    jobs?: BrokerOptions['jobs'];
    /** Any other broker option (declarations, the inbound email Function). */
    broker?: Partial<BrokerOptions>;
  } = {},
): Promise<{
  broker: Broker;
  clock: TestClock;
  lines: string[];
  appDir: string;
  cleanup: () => Promise<void>;
}> {
  const dir = await tempDir('broker-auth-');
  await writeFiles(dir.path, options.files ?? {});
  const lines: string[] = [];
  const clock = options.clock ?? new TestClock();
  const broker = await startBroker({
    appDir: dir.path,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    inMemory: true,
    snapshotPath: testSnapshotPath,
    logWriter: (line) => lines.push(line),
    auth: { appId: 'notes', passwordCost: 10, clock, ...options.auth },
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...options.broker,
  });
  return {
    broker,
    clock,
    lines,
    appDir: dir.path,
    cleanup: async () => {
      await broker.close().catch(() => undefined);
      await dir.remove();
    },
  };
}

/**
 * Writes what `platform dev` writes for the CLI (`.platform/dev.json`), so that `platform`
 * commands reach this test's broker: the test process stands in for `platform dev`.
 */
export async function writeDevStateFor(env: { broker: Broker; appDir: string }): Promise<void> {
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
}

interface StoredCookie {
  value: string;
  path: string;
  attributes: string;
}

/** How a {@link FakeBrowser} sends a request: in-process by default, or over real HTTP. */
export type Transport = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Real HTTP on loopback (`node:http`, not `fetch`, which overrides `Sec-Fetch-Mode` and `Host`),
 * redirects not followed, as a browser's network log sees them.
 */
export const overHttp: Transport = (url, init) =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init.body === 'string' ? init.body : undefined;
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const request = httpRequest(url, { method: init.method ?? 'GET', headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) answer.append(name, one);
        }
        const status = incoming.statusCode ?? 500;
        const bodiless = status === 204 || status === 304 || init.method === 'HEAD';
        resolve(new Response(bodiless ? null : Buffer.concat(chunks), { status, headers: answer }));
      });
    });
    request.on('error', reject);
    request.end(body);
  });

/**
 * A browser stand-in over `app.request` (or `transport`): a cookie jar honouring `Path` and
 * `Max-Age=0`, the `Origin` a page of this origin sends, and form posts.
 * {@link FakeBrowser.overHttp} sends the same requests through `fetch` to the broker's loopback
 * port instead.
 */
export class FakeBrowser {
  readonly jar = new Map<string, StoredCookie>();
  readonly #broker: Broker | undefined;
  readonly #transport: Transport;
  readonly origin: string;

  constructor(broker: Broker | undefined, origin = 'http://localhost', transport?: Transport) {
    this.#broker = broker;
    this.origin = origin;
    this.#transport =
      transport ??
      ((url, init) => {
        if (broker === undefined)
          throw new Error('A FakeBrowser without a broker needs a transport');
        return Promise.resolve(broker.app.request(url, init));
      });
  }

  /** A browser that talks to the started broker through `fetch` over loopback (its own origin). */
  static overHttp(broker: Broker): FakeBrowser {
    return new FakeBrowser(broker, broker.server.url, (url, init) =>
      fetch(url, { ...init, redirect: 'manual' }),
    );
  }

  /** A browser of a broker in another process, reached at `url` over loopback. */
  static at(url: string): FakeBrowser {
    return new FakeBrowser(undefined, url, (target, init) =>
      fetch(target, { ...init, redirect: 'manual' }),
    );
  }

  /** Every `Set-Cookie` line received, for flag checks. */
  readonly received: string[] = [];

  async request(
    path: string,
    init: {
      method?: string;
      form?: Record<string, string>;
      /** A JSON body, as the console's script sends one. */
      json?: unknown;
      headers?: Record<string, string>;
      origin?: string | null;
    } = {},
  ): Promise<Response> {
    const method = init.method ?? (init.form ? 'POST' : 'GET');
    const headers = new Headers(init.headers);
    const pathname = new URL(path, this.origin).pathname;
    const cookies = [...this.jar.entries()]
      .filter(
        ([, c]) =>
          pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .map(([name, c]) => `${name}=${c.value}`);
    if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
    if (method !== 'GET' && init.origin !== null) headers.set('origin', init.origin ?? this.origin);
    let body: string | undefined;
    if (init.form) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const response = await this.#transport(new URL(path, this.origin).href, {
      method,
      headers,
      body: body ?? null,
    });
    for (const line of response.headers.getSetCookie()) {
      this.received.push(line);
      const [pair = '', ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const cookiePath = attrs.find((a) => a.startsWith('Path='))?.slice(5) ?? '/';
      if (attrs.includes('Max-Age=0') || value === '') this.jar.delete(name);
      else this.jar.set(name, { value, path: cookiePath, attributes: attrs.join('; ') });
    }
    return response;
  }

  /** A top-level navigation (wants HTML). */
  navigate(path: string): Promise<Response> {
    return this.request(path, { headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate' } });
  }

  /** Signs in with the email link, confirmed from `mail` (default: this browser). */
  async signInByEmail(email: string, returnTo = '/', mail: FakeBrowser = this): Promise<Response> {
    const token = await this.requestLink(email, returnTo);
    await mail.confirmLink(token);
    return this.request('/_platform/auth/claim', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
  }

  /** Asks for an email link; resolves to the link token from the outbox. */
  async requestLink(email: string, returnTo = '/'): Promise<string> {
    const csrf = await this.csrf();
    const response = await this.request('/_platform/auth/email-link', {
      form: { email, returnTo, csrf },
    });
    if (response.status !== 200) throw new Error(`email-link answered ${response.status}`);
    if (this.#broker === undefined) throw new Error('Read the link from the broker’s output');
    return latestLinkToken(this.#broker, email);
  }

  /** Opens the review page of a link and confirms it. */
  async confirmLink(token: string): Promise<Response> {
    const review = await this.navigate(`/_platform/auth/confirm?token=${token}`);
    const preview = field(await review.text(), 'preview');
    return this.request('/_platform/auth/confirm', { form: { token, preview } });
  }

  /** A form token from the sign-in page. */
  async csrf(): Promise<string> {
    return field(await (await this.navigate('/_platform/auth/sign-in')).text(), 'csrf');
  }

  /** Signs in (or registers) with a password. */
  async signInByPassword(email: string, password: string, returnTo = '/'): Promise<Response> {
    const csrf = await this.csrf();
    return this.request('/_platform/auth/password', { form: { email, password, returnTo, csrf } });
  }

  /** The session route's answer. */
  async session(): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await this.request('/_platform/api/session', { method: 'POST' });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name)?.value;
  }
}

/**
 * Opens a credential request's approval page (`approveUrl`) in `browser` and posts `decision`
 * (`approve` or `decline`) with the page's form token and, as a person would, the code the
 * requesting terminal showed typed in (`typed`, by default the request's own `userCode`).
 */
export async function decideRequest(
  browser: FakeBrowser,
  asked: { readonly approveUrl: string; readonly userCode: string },
  decision = 'approve',
  typed = asked.userCode,
): Promise<Response> {
  const path = new URL(asked.approveUrl).pathname;
  const page = await (await browser.navigate(path)).text();
  return browser.request(path, { form: { csrf: field(page, 'csrf'), decision, code: typed } });
}

/** The value of the hidden field `name` in a page. */
export function field(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`No field ${name} in the page`);
  return match[1];
}

/** The token of the newest email link sent to `email`. */
export async function latestLinkToken(broker: Broker, email: string): Promise<string> {
  const [message] = (await broker.outbox.list(50)).filter((m) => m.to.includes(email));
  const match = /confirm\?token=([\w-]+)/.exec(message?.text ?? '');
  if (!match?.[1]) throw new Error(`No link for ${email} in the outbox`);
  return match[1];
}

/**
 * Adds a confirmed account with a password straight to the broker's database, as if it had
 * registered and confirmed long ago: no email is sent, nothing is printed.
 */
export async function addAccount(broker: Broker, email: string, password: string): Promise<void> {
  const verifier = await hashPassword(password, 10);
  await new Accounts(broker.central, broker.db, systemClock).create(email, 'confirmed', verifier);
}

/**
 * Adds a confirmed account with `password` that is a member of the broker's organisation: its
 * first administrator invites the address, then the account is made (the only way in).
 */
export async function addMember(broker: Broker, email: string, password: string): Promise<void> {
  await inviteToOrganisation(broker, email);
  await addAccount(broker, email, password);
}

/** Confirms an account's address the way its owner does: an email link, opened and confirmed. */
export async function confirmByEmail(broker: Broker, email: string): Promise<void> {
  const browser = new FakeBrowser(broker);
  const confirmed = await browser.confirmLink(await browser.requestLink(email));
  if (confirmed.status !== 200) throw new Error(`confirming ${email} answered ${confirmed.status}`);
}
