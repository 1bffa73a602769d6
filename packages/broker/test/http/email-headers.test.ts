// Header injection through `email.send`: a recipient or subject holding a line break would start
// another header (`Bcc: ...`) of the message. The broker (through a real Function in Deno) and the
// test kit refuse the same messages with the same code, and nothing is captured.
import { createTestContext } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(
    {
      'functions/mail.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  // The message travels as JSON text: the input schema helpers have no union for \`to\`.
  input: s.object({ message: s.string() }),
  handler: ({ input, email }) =>
    email.send({ from: 'support', text: 'Hello', ...JSON.parse(input.message) }),
});
`,
    },
    { declared: { secrets: [], searches: {}, emailAliases: ['support'] } },
  );
  await env.broker.addFunction({ name: 'mail', entrypoint: 'functions/mail.ts', access: 'user' });
});
afterAll(() => env?.cleanup());

/** What the broker answers a Function sending `message`: `ok` or the error code. */
async function throughBroker(message: Record<string, unknown>): Promise<string> {
  const response = await env.broker.app.request('/_platform/api/functions/mail', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': ALICE },
    body: JSON.stringify({ message: JSON.stringify(message) }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { code: string } };
  if (response.status === 200) return 'ok';
  expect(response.status).toBe(400);
  return body.error?.code ?? 'no code';
}

/** What the test kit answers `email.send(message)`: `ok` or the error code. */
async function throughTestKit(message: Record<string, unknown>): Promise<string> {
  const ctx = createTestContext({ emailAliases: ['support'] });
  try {
    await ctx.email.send({ from: 'support', text: 'Hello', ...message } as never);
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

const captured = async () =>
  (await env.broker.db.query<{ n: number }>('select count(*)::int as n from platform.outbox'))
    .rows[0]!.n;

const refused: Array<[string, Record<string, unknown>]> = [
  ['CR LF and a Bcc header in to', { to: 'ada@example.com\r\nBcc: eve@example.com', subject: 's' }],
  [
    'LF in one of several recipients',
    { to: ['ada@example.com', 'bob@example.com\nCc: eve@x.test'], subject: 's' },
  ],
  ['two addresses in one recipient', { to: 'ada@example.com, eve@example.com', subject: 's' }],
  ['a display name with angle brackets', { to: 'Eve <eve@example.com>', subject: 's' }],
  ['a NUL in the address', { to: 'ada@example.com\u0000', subject: 's' }],
  ['not an address at all', { to: 'ada', subject: 's' }],
  [
    'CR LF and a Bcc header in the subject',
    { to: 'ada@example.com', subject: 'Hi\r\nBcc: eve@example.com' },
  ],
  ['a lone LF in the subject', { to: 'ada@example.com', subject: 'Hi\nthere' }],
  ['an escape sequence in the subject', { to: 'ada@example.com', subject: 'Hi \u001b[2J' }],
  ['U+2028 in the subject', { to: 'ada@example.com', subject: 'Hi\u2028there' }],
  [
    'CR LF in replyTo',
    { to: 'ada@example.com', subject: 's', replyTo: 'ada@example.com\r\nBcc: eve@x.test' },
  ],
];

describe('email.send refuses header injection', () => {
  it.each(refused)(
    '%s: INVALID_REQUEST (400) in the broker and the test kit, nothing captured',
    async (_label, message) => {
      const before = await captured();
      expect(await throughBroker(message)).toBe('INVALID_REQUEST');
      expect(await throughTestKit(message)).toBe('INVALID_REQUEST');
      expect(await captured()).toBe(before);
    },
  );

  it('still sends plain addresses and one-line subjects, Unicode and emoji included', async () => {
    const message = {
      to: ['ada@example.com', 'owner@localhost', 'jürgen@bücher.example'],
      subject: 'Grüße 👨‍👩‍👧 — your order',
      replyTo: 'support+orders@todo.localhost',
    };
    expect(await throughBroker(message)).toBe('ok');
    expect(await throughTestKit(message)).toBe('ok');
    const { rows } = await env.broker.db.query<{ subject: string; recipients: string[] }>(
      'select subject, recipients from platform.outbox order by created_at desc limit 1',
    );
    expect(rows[0]).toEqual({ subject: message.subject, recipients: message.to });
  });
});
