// Inbound email end to end: nodemailer's SMTP transport on loopback talks to the broker's SMTP
// listener, and a real Deno system Function turns each message into a row.

import { inboundEmailSchema } from '@platform/schema';
import { createTransport, type Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpListener } from '../../src/inbound-mail/smtp-listener.ts';
import { brokerFor } from '../helpers/broker.ts';
import { inboundApp } from './inbound-app.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;
let smtp: SmtpListener;
let mailer: Transporter;
const logged: string[] = [];

beforeAll(async () => {
  env = await brokerFor(inboundApp, {
    declared: { secrets: [], searches: {}, emailAliases: ['todo', 'help'] },
    inboundFunction: 'inbound',
  });
  await env.broker.addFunction({
    name: 'inbound',
    entrypoint: 'functions/inbound.ts',
    access: 'system',
  });
  smtp = await SmtpListener.listen({
    port: 0,
    target: () => env.broker.inboundMail,
    log: (line) => logged.push(line),
  });
  mailer = createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
}, 120_000);
afterAll(async () => {
  mailer?.close();
  await smtp?.close();
  await env?.cleanup();
});

const domain = () => env.broker.inboundMail.addresses.domain;
const rows = async () =>
  (await env.broker.db.query<Record<string, unknown>>('SELECT * FROM mails ORDER BY id')).rows;
const fileCount = async () =>
  Number(
    (await env.broker.db.query<{ n: string }>('SELECT count(*) AS n FROM platform.files')).rows[0]
      ?.n,
  );

/** The SMTP error nodemailer rejects with. */
async function refusal(
  send: Promise<unknown>,
): Promise<{ responseCode: number; response: string; command: string }> {
  const error = (await send.then(
    () => {
      throw new Error('the message was accepted');
    },
    (e: unknown) => e,
  )) as { responseCode: number; response: string; command: string };
  return error;
}

describe('the SMTP listener', () => {
  it('names the app folder as the domain', () => {
    expect(domain()).toMatch(/^broker-app-[a-z0-9-]+\.localhost$/);
  });

  it('delivers a message, attachment included, to the system Function, which writes a row', async () => {
    const info = await mailer.sendMail({
      from: '"Ann Example" <ann@example.com>',
      to: `Todo <TODO@${domain()}>`,
      subject: 'Buy milk',
      text: 'Two litres.',
      messageId: '<m1@example.com>',
      attachments: [{ filename: 'list.txt', content: 'eggs', contentType: 'text/plain' }],
    });
    expect(info.accepted).toEqual([`TODO@${domain()}`]);
    expect(info.response).toMatch(/^250 2\.0\.0 Taken by inbound as inmail_/);
    const [row] = await rows();
    expect(row).toMatchObject({
      sender: 'ann@example.com',
      recipients: `todo@${domain()}`,
      subject: 'Buy milk',
      body: 'Two litres.',
      attachment: 'list.txt:text/plain:eggs',
      message_id: '<m1@example.com>',
    });
  });

  it('hands the Function the documented payload: headers kept, bodies, managed files', async () => {
    await mailer.sendMail({
      from: '"Bob B." <bob@example.com>',
      to: `help@${domain()}`,
      cc: ['carol@example.com', `todo@${domain()}`],
      replyTo: 'replies@example.com',
      subject: 'Payload',
      text: 'plain',
      html: '<p>rich</p>',
      messageId: '<m2@example.com>',
      inReplyTo: '<m1@example.com>',
      references: ['<m0@example.com>', '<m1@example.com>'],
      date: new Date('2026-11-23T08:00:00Z'),
    });
    const payload = JSON.parse(String((await rows()).at(-1)?.payload));
    expect(payload).toEqual({
      source: 'platform.email',
      id: expect.stringMatching(/^inmail_[0-9a-f]{24}$/),
      receivedAt: expect.any(String),
      from: 'bob@example.com',
      fromName: 'Bob B.',
      // The envelope: the app's addresses among To and Cc, each once.
      to: [`help@${domain()}`, `todo@${domain()}`],
      cc: ['carol@example.com', `todo@${domain()}`],
      replyTo: 'replies@example.com',
      subject: 'Payload',
      text: 'plain',
      html: '<p>rich</p>',
      messageId: '<m2@example.com>',
      inReplyTo: '<m1@example.com>',
      references: ['<m0@example.com>', '<m1@example.com>'],
      date: '2026-11-23T08:00:00.000Z',
      attachments: [],
    });
    expect(inboundEmailSchema.parse(payload)).toEqual(payload);
  });

  it('lists received mail beside sent mail in the outbox', async () => {
    await env.broker.outbox.capture(
      { from: 'help', to: 'ann@example.com', subject: 'Re: Buy milk', text: 'Noted.' },
      ['help'],
    );
    const response = await env.broker.app.request(`/v1/apps/${env.broker.appId}/outbox`);
    const { emails } = (await response.json()) as {
      emails: { direction: string; subject: string; attachments?: unknown[] }[];
    };
    expect(emails.map((e) => [e.direction, e.subject])).toEqual([
      ['outbound', 'Re: Buy milk'],
      ['inbound', 'Payload'],
      ['inbound', 'Buy milk'],
    ]);
    expect(emails[2]?.attachments).toEqual([
      { name: 'list.txt', contentType: 'text/plain', size: 4 },
    ]);
  });

  it('accepts a subaddress of an alias (alias+tag)', async () => {
    await mailer.sendMail({
      from: 'bob@example.com',
      to: `todo+list-7@${domain()}`,
      subject: 'Tagged',
      text: 'x',
    });
    expect((await rows()).at(-1)).toMatchObject({ recipients: `todo+list-7@${domain()}` });
  });

  it('refuses an unknown recipient at RCPT TO with 550 and writes nothing', async () => {
    const before = (await rows()).length;
    const error = await refusal(
      mailer.sendMail({
        from: 'ann@example.com',
        to: `nobody@${domain()}`,
        subject: 'Lost',
        text: 'x',
      }),
    );
    expect(error.command).toBe('RCPT TO');
    expect(error.responseCode).toBe(550);
    expect(error.response).toContain(`it receives mail at todo@${domain()}, help@${domain()}`);
    const other = await refusal(
      mailer.sendMail({
        from: 'a@example.com',
        to: 'todo@elsewhere.example',
        subject: 's',
        text: 'x',
      }),
    );
    expect(other.responseCode).toBe(550);
    expect((await rows()).length).toBe(before);
  });

  it('refuses an oversized message with 552 and writes nothing', async () => {
    const before = (await rows()).length;
    const error = await refusal(
      mailer.sendMail({
        from: 'ann@example.com',
        to: `todo@${domain()}`,
        subject: 'Huge attachment',
        text: 'see attached',
        attachments: [{ filename: 'big.bin', content: Buffer.alloc(11 * 1024 * 1024, 7) }],
      }),
    );
    expect(error.responseCode).toBe(552);
    expect(error.response).toMatch(/5\.3\.4/);
    expect((await rows()).length).toBe(before);
  });

  it('refuses too many attachments with 552', async () => {
    const attachments = Array.from({ length: 21 }, (_, i) => ({
      filename: `a${i}.txt`,
      content: 'x',
    }));
    const before = await fileCount();
    const error = await refusal(
      mailer.sendMail({
        from: 'ann@example.com',
        to: `todo@${domain()}`,
        subject: 'Many',
        text: 'x',
        attachments,
      }),
    );
    expect(error.responseCode).toBe(552);
    expect(error.response).toContain('21 attachments');
    expect(await fileCount()).toBe(before);
  });

  it('answers a malformed message with 554 and a clear reason', async () => {
    const error = await refusal(
      mailer.sendMail({
        envelope: { from: 'ann@example.com', to: [`todo@${domain()}`] },
        raw: 'just some words, no header section at all\r\n',
      }),
    );
    expect(error.responseCode).toBe(554);
    expect(error.response).toContain('no header section');
    const noSender = await refusal(
      mailer.sendMail({
        envelope: { from: '', to: [`todo@${domain()}`] },
        raw: `To: todo@${domain()}\r\nSubject: anonymous\r\n\r\nhello\r\n`,
      }),
    );
    expect(noSender.responseCode).toBe(554);
    expect(noSender.response).toContain('no sender');
  });

  it('answers an attachment name with a control character with 554 5.6.0 and logs why', async () => {
    const beforeRows = (await rows()).length;
    const beforeFiles = await fileCount();
    const before = logged.length;
    // The name decodes to "a<NUL>b.txt"; the first attachment is a good one, so a stored file
    // would have to be taken back.
    const raw = [
      'From: ann@example.com',
      `To: todo@${domain()}`,
      'Subject: broken name',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary=XX',
      '',
      '--XX',
      'Content-Type: text/plain',
      '',
      'hello',
      '--XX',
      'Content-Type: text/plain',
      'Content-Disposition: attachment; filename="fine.txt"',
      '',
      'fine',
      '--XX',
      'Content-Type: text/plain',
      'Content-Disposition: attachment; filename="=?utf-8?Q?a=00b.txt?="',
      '',
      'body',
      '--XX--',
      '',
    ].join('\r\n');
    const error = await refusal(
      mailer.sendMail({ envelope: { from: 'ann@example.com', to: [`todo@${domain()}`] }, raw }),
    );
    expect(error.responseCode).toBe(554);
    expect(error.response).toMatch(/5\.6\.0 Attachment 2 has a name with a control character/);
    expect((await rows()).length).toBe(beforeRows);
    expect(await fileCount()).toBe(beforeFiles);
    expect(logged.slice(before)).toEqual([
      expect.stringMatching(
        /^inbound mail refused \(554 5\.6\.0\): EMAIL_MESSAGE_INVALID: Attachment 2/,
      ),
    ]);
  });

  it('answers 451 when the Function throws, so the sender retries; no row, no file', async () => {
    const beforeRows = (await rows()).length;
    const beforeFiles = await fileCount();
    const beforeInbound = (await env.broker.inboundMail.list(500)).length;
    const error = await refusal(
      mailer.sendMail({
        from: 'ann@example.com',
        to: `todo@${domain()}`,
        subject: 'explode',
        text: 'x',
        attachments: [{ filename: 'kept.txt', content: 'not for long' }],
      }),
    );
    expect(error.responseCode).toBe(451);
    expect(error.response).toContain('HANDLER_BROKE');
    expect((await rows()).length).toBe(beforeRows);
    expect(await fileCount()).toBe(beforeFiles);
    expect((await env.broker.inboundMail.list(500)).length).toBe(beforeInbound);
  });
});
