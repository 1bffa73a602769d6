// `platform mail receive <file.eml>` and `platform outbox` as clients of a running broker found
// through .platform/dev.json, delivering to a real Deno inbound email Function.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { writeDevState } from '../../src/project/dev-state.ts';
import { brokerFor } from '../helpers/broker.ts';
import { inboundApp } from './inbound-app.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;
let domain: string;

beforeAll(async () => {
  env = await brokerFor(inboundApp, {
    declared: { secrets: [], searches: {}, emailAliases: ['todo'] },
    inboundFunction: 'inbound',
  });
  await env.broker.addFunction({
    name: 'inbound',
    entrypoint: 'functions/inbound.ts',
    access: 'system',
  });
  domain = env.broker.inboundMail.addresses.domain;
  await writeDevState(env.appDir, {
    url: env.broker.server.url,
    appId: env.broker.appId,
    pid: process.pid,
    token: 't',
  });
}, 120_000);
afterAll(() => env?.cleanup());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    cwd: env.appDir,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function eml(name: string, text: string | Buffer): Promise<string> {
  await writeFile(join(env.appDir, name), text);
  return name;
}

const rows = async () =>
  (await env.broker.db.query<Record<string, unknown>>('SELECT * FROM mails ORDER BY id')).rows;

const message = (to: string, subject: string) =>
  [
    'From: Ann Example <ann@example.com>',
    `To: Someone Else <someone@example.com>, ${to}`,
    `Subject: ${subject}`,
    'Message-ID: <eml-1@example.com>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'From a file.',
    '--b1',
    'Content-Type: text/plain; name="note.txt"',
    'Content-Disposition: attachment; filename="note.txt"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('saved note').toString('base64'),
    '--b1--',
    '',
  ].join('\r\n');

describe('platform mail receive', () => {
  it('delivers an .eml file to the app addresses among its To and Cc', async () => {
    const file = await eml('hello.eml', message(`todo@${domain}`, 'From the CLI'));
    const { code, out, err } = await cli('mail', 'receive', file);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(
      new RegExp(`^Delivered to todo@${domain}: inbound took it as inmail_[0-9a-f]+ \\(`),
    );
    expect(out).toMatch(/Result: \{"row":\d+\}/);
    expect((await rows()).at(-1)).toMatchObject({
      sender: 'ann@example.com',
      recipients: `todo@${domain}`,
      subject: 'From the CLI',
      body: 'From a file.',
      attachment: 'note.txt:text/plain:saved note',
    });
  });

  it('shows received mail beside sent mail in platform outbox', async () => {
    await env.broker.outbox.capture(
      { from: 'todo', to: 'ann@example.com', subject: 'Reply', text: 'Got it.' },
      ['todo'],
    );
    const { code, out } = await cli('outbox');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/ OUT {2}todo -> ann@example\.com {2}"Reply"$/);
    expect(out).toMatch(new RegExp(` IN {3}ann@example\\.com -> todo@${domain} {2}"From the CLI"`));
    expect(out).toContain('attachment: note.txt (text/plain, 10 bytes)');
  });

  it('refuses a file none of whose recipients is the app, and an explicit unknown --to', async () => {
    const before = (await rows()).length;
    const file = await eml('other.eml', message('x@elsewhere.example', 'Not ours'));
    const plain = await cli('mail', 'receive', file);
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('platform mail: EMAIL_RECIPIENT_UNKNOWN (404)');
    const explicit = await cli('mail', 'receive', file, '--to', `nobody@${domain}`);
    expect(explicit.err).toContain(`nobody@${domain} is not an address of this app`);
    const chosen = await cli('mail', 'receive', file, '--to', `todo@${domain}`);
    expect(chosen.code).toBe(0);
    expect((await rows()).length).toBe(before + 1);
  });

  it('refuses a file that is not an email, an oversized one, and a failing Function', async () => {
    const before = (await rows()).length;
    const text = await cli('mail', 'receive', await eml('notes.txt', 'shopping list\nmilk\n'));
    expect(text.code).toBe(1);
    expect(text.err).toContain('EMAIL_MESSAGE_INVALID (400)');
    expect(text.err).toContain('no header section');

    const huge = Buffer.concat([
      Buffer.from(`From: ann@example.com\r\nTo: todo@${domain}\r\nSubject: big\r\n\r\n`),
      Buffer.alloc(10 * 1024 * 1024 + 1, 'a'),
    ]);
    const big = await cli('mail', 'receive', await eml('big.eml', huge));
    expect(big.code).toBe(1);
    expect(big.err).toContain('EMAIL_MESSAGE_TOO_LARGE (413)');

    const failing = await cli(
      'mail',
      'receive',
      await eml('x.eml', message(`todo@${domain}`, 'explode')),
    );
    expect(failing.code).toBe(1);
    expect(failing.err).toContain('EMAIL_HANDLER_FAILED (502)');
    expect(failing.err).toContain('HANDLER_BROKE');
    expect((await rows()).length).toBe(before);
  });

  it('resends a captured email to the inbound email Function, with a non-ASCII subject and both bodies', async () => {
    const { id } = await env.broker.outbox.capture(
      {
        from: 'todo',
        to: ['bea@example.com', `todo+inbox@${domain}`],
        subject: 'Café order ✓',
        text: 'two coffees',
        html: '<p>two coffees</p>',
      },
      ['todo'],
    );
    const sent = await cli('mail', 'resend', id);
    expect(sent.code).toBe(0);
    // Its own recipient that is the app's address is the one it is delivered to.
    expect(sent.out).toMatch(
      new RegExp(`^Delivered to todo\\+inbox@${domain}: inbound took it as `),
    );
    const last = (await rows()).at(-1)!;
    expect(last).toMatchObject({
      sender: `todo@${domain}`,
      recipients: `todo+inbox@${domain}`,
      subject: 'Café order ✓',
      body: 'two coffees',
    });
    expect(JSON.parse(String(last.payload))).toMatchObject({ html: '<p>two coffees</p>' });
    const chosen = await cli('mail', 'resend', id, '--to', `todo@${domain}`);
    expect(chosen.out).toMatch(new RegExp(`^Delivered to todo@${domain}:`));
    const missing = await cli('mail', 'resend', 'email_none');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('EMAIL_NOT_FOUND');
  });

  it('explains usage and unreadable files', async () => {
    expect((await cli('mail', 'send', 'x.eml')).code).toBe(2);
    const missing = await cli('mail', 'receive', 'nope.eml');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^platform mail: cannot read nope\.eml: ENOENT/);
  });
});
