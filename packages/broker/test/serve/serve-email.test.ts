// The outbound mail of `platform serve`: with a mail server set, the central sign-in's link and
// a deployed app's `email.send` arrive at a real SMTP server (loopback), and the service's own
// output never holds the link; without one, email-link sign-in and `email.send` answer
// FEATURE_NOT_AVAILABLE and nothing is printed in the mail's place. Two nodes share one
// PostgreSQL, so one deployment serves both: node `mail` has the mail server, node `none` not.
import type { ChildProcess } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  call,
  cli,
  freePort,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
  withCentral,
} from './serve-harness.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
email:
  aliases:
    - name: news
functions:
  - name: notify
    entrypoint: functions/notify/index.ts
    access: public
    route:
      path: /api/notify
      methods: [GET]
`;

const notifySource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ email }) =>
    email.send({ from: 'news', to: 'reader@example.com', subject: 'Fresh news', text: 'Read all about it.' }),
});
`;

const SMTP_PASSWORD = 'the mail server password';

/** One node: its port, base URL, process and everything it wrote to stdout and stderr. */
interface Node {
  readonly port: number;
  readonly base: string;
  readonly process: ChildProcess;
  readonly output: () => string;
}

/** Asks `base`'s central sign-in for an email link to `email`, as its sign-in form does. */
async function requestLink(base: string, email: string): Promise<Response> {
  const page = await fetch(`${base}/_platform/auth/sign-in`);
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const cookie = page.headers
    .getSetCookie()
    .map((one) => one.split(';')[0])
    .join('; ');
  expect(csrf).toBeDefined();
  return fetch(`${base}/_platform/auth/email-link`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: base,
      cookie,
    },
    body: new URLSearchParams({ csrf: csrf as string, email, returnTo: '/' }),
  });
}

/** Registers `email` with a password at `base`'s central sign-in, as its form does. */
async function registerWithPassword(base: string, email: string): Promise<Response> {
  const page = await fetch(`${base}/_platform/auth/sign-in`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  const cookie = page.headers
    .getSetCookie()
    .map((one) => one.split(';')[0])
    .join('; ');
  return fetch(`${base}/_platform/auth/password`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
    body: new URLSearchParams({
      csrf: csrf as string,
      email,
      password: 'a long enough password',
      returnTo: '/',
    }),
  });
}

describe('outbound mail of platform serve', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let sink: SmtpSink;
  let mail: Node;
  let none: Node;

  const startNode = async (name: string, extra: Record<string, string>): Promise<Node> => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const process = startService({
      ...serveEnv(postgres.url, base, port, join(dir.path, name)),
      PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
      ...extra,
    });
    let output = '';
    process.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    process.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    return { port, base, process, output: () => output };
  };

  beforeAll(async () => {
    [postgres, secrets, dir, sink] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-email-'),
      startSmtpSink('mailer', SMTP_PASSWORD),
    ]);
    const passwordFile = join(dir.path, 'smtp-password');
    await writeFile(passwordFile, `${SMTP_PASSWORD}\n`);
    await chmod(passwordFile, 0o600);
    mail = await startNode('mail', {
      PLATFORM_SMTP_URL: `smtp://mailer@127.0.0.1:${sink.port}`,
      PLATFORM_SMTP_PASSWORD_FILE: passwordFile,
      PLATFORM_MAIL_FROM: 'sign-in@example.test',
    });
    expect((await setUpAdministrator(mail.base, await setupKey(mail.process))).status).toBe(200);
    none = await startNode('none', {});
    await Promise.all([
      waitReady(mail.port, `localhost:${mail.port}`),
      waitReady(none.port, `localhost:${none.port}`),
    ]);
    expect(
      await keepCredential(secrets.env, dir.path, mail.base, await adaCredential(postgres.url)),
    ).toBe(0);
    const app = join(dir.path, 'paper');
    await writeFiles(app, {
      'platform.yaml': manifest,
      'functions/notify/index.ts': notifySource,
    });
    const deployed = await cli(secrets.env, ['deploy', app, '--to', mail.base, '--app', 'paper']);
    expect(deployed.err).toBe('');
  }, 120_000);

  afterAll(async () => {
    for (const node of [mail, none]) {
      if (node && node.process.exitCode === null) node.process.kill('SIGKILL');
    }
    await Promise.all([postgres?.stop(), secrets?.stop(), sink?.close()]);
    await dir?.remove();
  });

  it('sends the central sign-in link over SMTP and never prints it', async () => {
    expect((await requestLink(mail.base, 'ada@example.com')).status).toBe(200);
    const email = await sink.next((one) => one.rcptTo.includes('ada@example.com'));
    expect(email.from).toBe('sign-in@example.test');
    const link = new RegExp(`${mail.base}/_platform/auth/confirm\\?token=([\\w-]+)`).exec(
      email.text,
    );
    expect(link).not.toBeNull();
    const [url, token] = link as unknown as [string, string];
    // The link works: its review page asks to confirm.
    const review = await fetch(url);
    expect(review.status).toBe(200);
    expect(await review.text()).toContain('ada@example.com');
    // The log line follows the server's acceptance, which the sink saw first.
    await expect.poll(() => mail.output()).toContain('"mail sent"');
    expect(mail.output()).not.toContain(token);
    expect(mail.output()).not.toContain('confirm?token=');
  });

  it("sends a deployed app's email.send from <alias>@<app>.<base domain>", async () => {
    const answer = await call(mail.port, `paper.localhost:${mail.port}`, '/api/notify');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result).toMatchObject({ captured: false });
    const email = await sink.next((one) => one.subject === 'Fresh news');
    expect(email).toMatchObject({
      from: 'news@paper.localhost',
      rcptTo: ['reader@example.com'],
      text: 'Read all about it.',
    });
    expect(mail.output()).not.toContain('Read all about it');
  });

  it('answers FEATURE_NOT_AVAILABLE without a mail server, and prints no link', async () => {
    const asked = await requestLink(none.base, 'ada@example.com');
    expect(asked.status).toBe(501);
    expect(await asked.text()).toContain('FEATURE_NOT_AVAILABLE');
    // The same answer for an address without an account: it reveals none.
    expect((await requestLink(none.base, 'nobody@example.com')).status).toBe(501);
    // The deployment reaches this node too; its email.send is refused, never faked.
    let answer = { status: 0, body: '' };
    for (let tries = 0; tries < 150 && !answer.body.includes('FEATURE_NOT_AVAILABLE'); tries++) {
      answer = await call(none.port, `paper.localhost:${none.port}`, '/api/notify');
      if (!answer.body.includes('FEATURE_NOT_AVAILABLE')) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(answer.status).toBe(501);
    expect(answer.body).toContain('FEATURE_NOT_AVAILABLE');
    // No account is made that no email could confirm.
    const registered = await registerWithPassword(none.base, 'newcomer@example.com');
    expect(registered.status).toBe(501);
    const accounts = await withCentral(
      postgres.url,
      async (central) =>
        (
          await central.query('SELECT 1 FROM platform.accounts WHERE email = $1', [
            'newcomer@example.com',
          ])
        ).rows.length,
    );
    expect(accounts).toBe(0);
    expect(none.output()).not.toContain('token=');
    expect(none.output()).not.toContain('mail sent');
    expect(sink.received.filter((one) => one.subject === 'Fresh news')).toHaveLength(1);
  });
});

describe('the outbound mail settings of platform serve', () => {
  const load = (env: Record<string, string>) =>
    loadServeSettings({
      env: { PLATFORM_DATABASE_URL: 'postgres://u@localhost/db', ...env },
      cwd: '/tmp',
    });
  const problemsOf = async (env: Record<string, string>) => {
    const loaded = await load(env);
    return loaded.ok ? [] : loaded.problems;
  };

  it('names the setting of a bad mail server URL, and never repeats a password in it', async () => {
    expect(await problemsOf({ PLATFORM_SMTP_URL: 'http://mail.example.com' })).toEqual([
      'PLATFORM_SMTP_URL: expected an smtp:// or smtps:// URL with a host (like smtp://mailer@mail.example.com:587).',
    ]);
    const withPassword = await problemsOf({
      PLATFORM_SMTP_URL: 'smtps://mailer:hunter22@mail.example.com',
    });
    expect(withPassword).toEqual([
      expect.stringMatching(/^PLATFORM_SMTP_URL: holds a password; .*PLATFORM_SMTP_PASSWORD_FILE/),
    ]);
    expect(withPassword.join('\n')).not.toContain('hunter22');
    expect(await problemsOf({ PLATFORM_MAIL_FROM: 'auth@example.com' })).toEqual([
      'PLATFORM_MAIL_FROM: needs PLATFORM_SMTP_URL, the mail server it is for; set it, or leave this out.',
    ]);
    expect(
      await problemsOf({ PLATFORM_SMTP_URL: 'smtp://m@mail.example.com', PLATFORM_MAIL_FROM: 'x' }),
    ).toEqual(['PLATFORM_MAIL_FROM: expected an email address (like auth@example.com).']);
  });

  it('reads the password from its file, which only its owner may read', async () => {
    const dir = await tempDir('serve-mail-settings-');
    try {
      const file = join(dir.path, 'password');
      await writeFile(file, 's3cret\n');
      await chmod(file, 0o644);
      const env = {
        PLATFORM_SMTP_URL: 'smtp://mailer@mail.example.com',
        PLATFORM_SMTP_PASSWORD_FILE: file,
      };
      expect(await problemsOf(env)).toEqual([
        `PLATFORM_SMTP_PASSWORD_FILE: ${file} is readable by others; chmod 600 it.`,
      ]);
      await chmod(file, 0o600);
      const loaded = await load({ ...env, PLATFORM_BASE_DOMAIN: 'apps.example.com' });
      expect(loaded.ok && loaded.settings.mail).toEqual({
        secure: false,
        host: 'mail.example.com',
        port: 587,
        user: 'mailer',
        password: 's3cret',
        from: 'auth@apps.example.com',
      });
      // Unset, the service has no outbound mail.
      const plain = await load({});
      expect(plain.ok && plain.settings.mail).toBeUndefined();
    } finally {
      await dir.remove();
    }
  });
});
