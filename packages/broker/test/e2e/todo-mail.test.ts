// The example app under `platform dev` in-process: mail sent over SMTP on loopback to a user's
// mail-in address becomes one of their todos, through the app's real inbound email Function.
import { createPlatform } from '@platform/browser';
import { createTransport, type Transporter } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { ada, bob, copyExample, devFor, fetchAs } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let lines: string[];
let mailer: Transporter;

beforeAll(async () => {
  app = await copyExample();
  ({ dev, lines } = await devFor(app.path, { watch: false }));
  mailer = createTransport({
    host: '127.0.0.1',
    port: dev.smtp.port,
    secure: false,
    ignoreTLS: true,
  });
});

afterAll(async () => {
  mailer?.close();
  await dev?.close();
  await app?.remove();
});

const call = async <T>(user: string, name: string, input: Record<string, unknown> = {}) =>
  (await createPlatform({ appUrl: dev.url, fetch: fetchAs(user) }).functions.call(
    name,
    input,
  )) as T;

interface Todo {
  id: string;
  title: string;
  notes: string;
  owner_id: string;
  attachment_name: string | null;
}

describe('mailing the example app', () => {
  it('turns a message to a user’s mail-in address into their todo', async () => {
    const domain = dev.broker.inboundMail.addresses.domain;
    const { localPart } = await call<{ localPart: string }>(ada, 'mailInAddress');
    expect(localPart).toMatch(/^todo\+[0-9a-f]{32}$/);
    // The same address on every call.
    expect((await call<{ localPart: string }>(ada, 'mailInAddress')).localPart).toBe(localPart);
    const info = await mailer.sendMail({
      from: 'ada@example.com',
      to: `${localPart}@${domain}`,
      subject: '  Call   the plumber ',
      text: 'Before Friday.',
      attachments: [
        { filename: 'quote.txt', content: 'EUR 120' },
        { filename: 'extra.txt', content: 'not kept' },
      ],
    });
    expect(info.response).toMatch(/^250 /);
    const { todos } = await call<{ todos: Todo[] }>(ada, 'listTodos');
    const todo = todos.find((t) => t.title === 'Call the plumber');
    expect(todo).toMatchObject({
      owner_id: ada,
      notes: 'Before Friday.',
      attachment_name: 'quote.txt',
    });
    // Bob sees none of it; the attachment the todo does not keep was removed.
    expect((await call<{ todos: Todo[] }>(bob, 'listTodos')).todos).toEqual([]);
    const { rows } = await dev.broker.db.query<{ name: string }>(
      'SELECT name FROM platform.files ORDER BY name',
    );
    expect(rows.map((r) => r.name)).toEqual(['quote.txt']);
  });

  it('accepts and drops mail without a known key; refuses other aliases’ strangers', async () => {
    const domain = dev.broker.inboundMail.addresses.domain;
    const info = await mailer.sendMail({
      from: 'spam@example.com',
      to: `todo@${domain}`,
      subject: 'Win big',
      text: 'x',
    });
    expect(info.response).toMatch(/^250 /);
    expect(lines.join('\n')).toContain('mail without a known mail-in key dropped');
    const error = (await mailer
      .sendMail({ from: 'a@example.com', to: `nobody@${domain}`, subject: 's', text: 'x' })
      .catch((e: unknown) => e)) as { responseCode: number };
    expect(error.responseCode).toBe(550);
  });

  it('a todo with a reminder enqueues on the reminders queue, whose consumer mails it', async () => {
    const todo = await call<Todo & { reminderJobId: string }>(ada, 'createTodo', {
      title: 'Water the plants',
      remindInMinutes: 0,
    });
    expect(todo.reminderJobId).toMatch(/^job_/);
    await expect
      .poll(async () => (await dev.broker.jobs.service.get(todo.reminderJobId)).state)
      .toBe('succeeded');
    expect((await dev.broker.jobs.service.get(todo.reminderJobId)).queue).toBe('reminders');
    const sent = await dev.broker.outbox.list(20);
    expect(sent.map((message) => message.subject)).toContain('Reminder: Water the plants');
    // Without remindInMinutes, no job.
    expect(
      await call<{ reminderJobId: unknown }>(ada, 'createTodo', { title: 'No reminder' }),
    ).toMatchObject({
      reminderJobId: null,
    });
  });
});
