import { describe, expect, it } from 'vitest';
// The todo example's real inbound email Function, as the broker runs it in its e2e test.
import inboundEmail from '../../../examples/todo/functions/inbound-email/index.ts';
import { defineFunction, inboundEmailSchema } from '../src/index.ts';
import { receivedEmail, runFunction } from '../src/testing/index.ts';

const ADA = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';
const KEY = '0123456789abcdef0123456789abcdef';

describe('receivedEmail', () => {
  it('hands the Function the payload the broker delivers, attachments as files', async () => {
    const echo = defineFunction({
      input: inboundEmailSchema,
      handler: async ({ input, files }) => ({
        input,
        text: new TextDecoder().decode((await files.download(input.attachments[0]!.file)).data),
      }),
    });
    const { result } = await runFunction(
      echo,
      receivedEmail({
        from: 'Ann@Example.com',
        to: 'Todo@App.localhost',
        subject: 'Milk',
        text: 'Two litres.',
        attachments: [{ name: 'list.txt', contentType: 'text/plain', data: 'eggs' }],
      }),
    );
    expect(result.input).toEqual({
      source: 'platform.email',
      id: 'inmail_test',
      receivedAt: '1970-01-01T00:00:00.000Z',
      from: 'ann@example.com',
      fromName: null,
      to: ['todo@app.localhost'],
      cc: [],
      replyTo: null,
      subject: 'Milk',
      text: 'Two litres.',
      html: null,
      messageId: null,
      inReplyTo: null,
      references: [],
      date: null,
      attachments: [
        { file: 'file_inbound_1', name: 'list.txt', contentType: 'text/plain', size: 4 },
      ],
    });
    expect(result.text).toBe('eggs');
  });

  it('refuses a message the broker would not deliver (no recipient)', () => {
    expect(() => receivedEmail({ from: 'a@example.com', to: [] })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });

  it("runs the todo example's inbound Function as platform dev does", async () => {
    const { result, ctx } = await runFunction(
      inboundEmail,
      receivedEmail(
        {
          from: 'ada@example.com',
          to: `todo+${KEY}@todo.localhost`,
          subject: '  Call   the plumber ',
          text: 'Before Friday.\n',
          attachments: [
            { name: 'quote.txt', data: 'EUR 120' },
            { name: 'extra.txt', data: 'not kept' },
          ],
        },
        { data: { todos: [], mail_in_keys: [{ id: KEY, owner_id: ADA }] } },
      ),
    );
    expect(result).toEqual({ todo: expect.any(String) });
    expect(ctx.tables.todos).toEqual([
      expect.objectContaining({
        owner_id: ADA,
        title: 'Call the plumber',
        notes: 'Before Friday.',
        attachment_id: 'file_inbound_1',
        attachment_name: 'quote.txt',
      }),
    ]);
    expect([...ctx.broker.state.files.keys()]).toEqual(['file_inbound_1']);
  });
});
