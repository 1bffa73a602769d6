// What becomes of an email by the outbox's delivery: development captures it; a service with a
// mail server hands it on from the alias's full address and keeps nothing; a service without
// one refuses it and keeps nothing; a mail server that refuses it is no success; a copy held
// for inspection captures whatever the service does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingMail } from '../../src/outbox/mail-delivery.ts';
import { Outbox } from '../../src/outbox/outbox.ts';
import { appWithDatabase } from '../helpers/db.ts';

const message = { from: 'news', to: 'reader@example.com', subject: 'Hi', text: 'Hello' };

describe('the outbox delivery', () => {
  let env: Awaited<ReturnType<typeof appWithDatabase>>;
  const kept = async () => (await env.db.query('SELECT 1 FROM platform.outbox')).rows.length;

  beforeAll(async () => {
    env = await appWithDatabase();
  });
  afterAll(() => env?.cleanup());

  it('sends from the alias address and keeps nothing', async () => {
    const sent: OutgoingMail[] = [];
    const outbox = new Outbox(env.db, undefined, {
      kind: 'send',
      transport: { send: async (mail) => void sent.push(mail) },
      fromAddress: (alias) => `${alias}@paper.apps.example.com`,
    });
    expect(outbox.capturing).toBe(false);
    expect(await outbox.capture(message, ['news'])).toMatchObject({ captured: false });
    expect(sent).toEqual([
      {
        from: 'news@paper.apps.example.com',
        to: ['reader@example.com'],
        subject: 'Hi',
        text: 'Hello',
        html: undefined,
        replyTo: undefined,
      },
    ]);
    expect(await kept()).toBe(0);
  });

  it('answers INTERNAL, without the server’s text, when the mail server refuses', async () => {
    const outbox = new Outbox(env.db, undefined, {
      kind: 'send',
      transport: {
        send: async () => {
          throw new Error('550 mailbox secret-account@example.com unavailable');
        },
      },
      fromAddress: (alias) => `${alias}@paper.apps.example.com`,
    });
    const refused = await outbox.capture(message, ['news']).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'INTERNAL' });
    expect(JSON.stringify(refused)).not.toContain('secret-account');
  });

  it('refuses with FEATURE_NOT_AVAILABLE without a mail server, and keeps nothing', async () => {
    const outbox = new Outbox(env.db, undefined, { kind: 'none' });
    expect(outbox.capturing).toBe(false);
    await expect(outbox.capture(message, ['news'])).rejects.toMatchObject({
      code: 'FEATURE_NOT_AVAILABLE',
    });
    // An undeclared alias is still the caller's mistake first.
    await expect(outbox.capture(message, [])).rejects.toMatchObject({
      code: 'EMAIL_ALIAS_NOT_DECLARED',
    });
    expect(await kept()).toBe(0);
  });

  it('captures, never sends, in a copy held for inspection on a service that sends mail', async () => {
    const sent: OutgoingMail[] = [];
    const outbox = new Outbox(
      env.db,
      undefined,
      {
        kind: 'send',
        transport: { send: async (mail) => void sent.push(mail) },
        fromAddress: (alias) => `${alias}@paper-copy.apps.example.com`,
      },
      async () => true,
    );
    const captured = await outbox.capture(message, ['news']);
    expect(captured.captured).toBe(true);
    expect((await outbox.get(captured.id)).subject).toBe('Hi');
    expect(sent).toEqual([]);
  });

  it('captures in development, as before', async () => {
    const outbox = new Outbox(env.db);
    expect(outbox.capturing).toBe(true);
    const captured = await outbox.capture(message, ['news']);
    expect(captured.captured).toBe(true);
    expect((await outbox.get(captured.id)).to).toEqual(['reader@example.com']);
  });
});
