// An app that declares no email.inbound.function takes no mail: SMTP refuses every recipient at
// RCPT TO, and the .eml route answers EMAIL_INBOUND_NOT_DECLARED.
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpListener } from '../../src/inbound-mail/smtp-listener.ts';
import { brokerFor } from '../helpers/broker.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;
let smtp: SmtpListener;

beforeAll(async () => {
  env = await brokerFor({}, { declared: { secrets: [], searches: {}, emailAliases: ['todo'] } });
  smtp = await SmtpListener.listen({ port: 0, target: () => env.broker.inboundMail });
}, 120_000);
afterAll(async () => {
  await smtp?.close();
  await env?.cleanup();
});

describe('an app without an inbound email Function', () => {
  it('refuses mail to its aliases at RCPT TO with 550', async () => {
    const mailer = createTransport({ host: '127.0.0.1', port: smtp.port, ignoreTLS: true });
    const error = (await mailer
      .sendMail({
        from: 'ann@example.com',
        to: `todo@${env.broker.inboundMail.addresses.domain}`,
        subject: 's',
        text: 'x',
      })
      .catch((e: unknown) => e)) as { responseCode: number; command: string; response: string };
    mailer.close();
    expect(error).toMatchObject({ responseCode: 550, command: 'RCPT TO' });
    expect(error.response).toContain('declares no email.inbound.function');
  });

  it('answers the .eml route with EMAIL_INBOUND_NOT_DECLARED', async () => {
    const response = await env.broker.app.request(`/v1/apps/${env.broker.appId}/mail/inbound`, {
      method: 'POST',
      body: 'From: ann@example.com\r\nTo: todo@x.localhost\r\n\r\nhi\r\n',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'EMAIL_INBOUND_NOT_DECLARED' } });
  });
});
