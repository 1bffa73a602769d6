// Inbound email end to end: messages per second from nodemailer's SMTP transport (a pool of
// CONNECTIONS connections on loopback) through the broker's SMTP listener, mailparser and a real
// Deno inbound email Function that writes one row, beside two baselines measured in the same run:
// - "direct call": the same Function called with the same payload through the broker's invoker
//   (what SMTP, parsing, attachment-free delivery and the outbox record add on top of a call);
// - "bare SMTP": the same nodemailer pool against a bare `smtp-server` that accepts and discards
//   (the SMTP dialogue alone).
//
// As a suite of bench/run.ts: `inbound-mail: () => import('./inbound-mail/inbound-mail.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/inbound-mail/inbound-mail.ts`.
// MAIL_BENCH_COUNT=300.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { startBroker } from '../../packages/broker/src/app/start-broker.ts';
import { defaultSnapshotPath } from '../../packages/broker/src/db/open-database.ts';
import { SmtpListener } from '../../packages/broker/src/inbound-mail/smtp-listener.ts';
import { anonymousCaller, systemCaller } from '../../packages/broker/src/kernel/caller.ts';
import { inboundEmailPayload } from '../../packages/schema/src/index.ts';
import { type Row, ratioRow } from '../report.ts';

const COUNT = Number(process.env.MAIL_BENCH_COUNT ?? 300);
const CONNECTIONS = 4;

const handler = `import { defineFunction, inboundEmailSchema } from '@platform/server';
export default defineFunction({
  input: inboundEmailSchema,
  handler: async ({ input, data }) => {
    await data.table('mails').create({ sender: input.from, subject: input.subject });
    return null;
  },
});
`;

/** Sends COUNT small messages over a nodemailer pool; resolves to messages per second. */
async function sendAll(port: number, to: string): Promise<number> {
  const mailer = createTransport({
    host: '127.0.0.1',
    port,
    ignoreTLS: true,
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Number.POSITIVE_INFINITY,
  });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: COUNT }, (_, i) =>
      mailer.sendMail({ from: 'ann@example.com', to, subject: `Message ${i}`, text: 'Hello.' }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  mailer.close();
  return COUNT / seconds;
}

/** The Function called directly, CONNECTIONS calls at a time, with the payload SMTP would bring. */
async function callAll(call: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < COUNT) await call(next++);
    }),
  );
  return COUNT / ((performance.now() - started) / 1000);
}

async function bareSmtp(): Promise<number> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => callback());
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await sendAll((server.server.address() as AddressInfo).port, 'todo@bench.localhost');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Runs the suite; one row per baseline. */
export async function run(): Promise<Row[]> {
  const appDir = await mkdtemp(join(tmpdir(), 'bench-'));
  await writeFile(join(appDir, 'inbound.ts'), handler);
  await mkdir(join(appDir, 'migrations'));
  await writeFile(
    join(appDir, 'migrations/001_mails.sql'),
    'create table mails (id serial primary key, sender text, subject text);',
  );
  const broker = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    snapshotPath: defaultSnapshotPath(),
    logWriter: () => undefined,
    authenticate: async () => anonymousCaller,
    declared: { secrets: [], searches: {}, emailAliases: ['todo'] },
    inboundFunction: 'inbound',
  });
  const smtp = await SmtpListener.listen({ port: 0, target: () => broker.inboundMail });
  try {
    await broker.addFunction({ name: 'inbound', entrypoint: 'inbound.ts', access: 'system' });
    const to = `todo@${broker.inboundMail.addresses.domain}`;
    // Warm-up: the Function process, the parser and the pool's first connections.
    await sendAll(smtp.port, to);
    const direct = await callAll(async (i) => {
      const payload = inboundEmailPayload({
        id: `inmail_bench_${i}`,
        receivedAt: new Date().toISOString(),
        from: 'ann@example.com',
        fromName: null,
        to: [to],
        cc: [],
        replyTo: null,
        subject: `Message ${i}`,
        text: 'Hello.',
        html: null,
        messageId: null,
        inReplyTo: null,
        references: [],
        date: null,
        attachments: [],
      });
      const response = await broker.invoker.call('inbound', {
        requestId: `req_bench_${i}`,
        input: payload,
        caller: systemCaller(),
        origin: 'platform',
      });
      await response.arrayBuffer();
    });
    const ours = await sendAll(smtp.port, to);
    const bare = await bareSmtp();
    return [
      ratioRow(`inbound mail msgs/s (${COUNT}) vs direct Function call`, ours, direct),
      ratioRow(`inbound mail msgs/s (${COUNT}) vs bare smtp-server`, ours, bare),
    ];
  } finally {
    await smtp.close();
    await broker.close();
    await rm(appDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
