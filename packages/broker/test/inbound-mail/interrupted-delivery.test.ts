// A broker stopped during an inbound delivery (killed, even by SIGKILL) never answered the
// sender, so the delivery was not taken: the next start removes the attachments it had stored,
// and leaves the attachments of the deliveries that were taken alone.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { systemCaller } from '../../src/kernel/caller.ts';
import { newId } from '../../src/kernel/ids.ts';
import { thisProcess } from '../../src/kernel/process-mark.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { type ChildBroker, startChild } from '../jobs/child-broker.ts';

const childScript = fileURLToPath(new URL('./fixtures/inbound-child.ts', import.meta.url));

/** The Function records each message and its attachments; it hangs on `hang`, throws on `explode`. */
const app = {
  'migrations/001_seen.sql':
    'create table seen (id serial primary key, subject text not null, files text not null);',
  'functions/inbound.ts': `
import { defineFunction, errors, inboundEmailSchema } from '@platform/server';
export default defineFunction({
  input: inboundEmailSchema,
  handler: async ({ input, data }) => {
    const files = input.attachments.map((a) => a.file);
    await data.table('seen').create({ subject: input.subject, files: JSON.stringify(files) });
    if (input.subject === 'explode') throw errors.conflict('HANDLER_BROKE', 'Broken on purpose.');
    if (input.subject === 'hang') await new Promise((resolve) => setTimeout(resolve, 600_000));
    return { files };
  },
});
`,
};

const message = (to: string, subject: string) =>
  new TextEncoder().encode(
    [
      'From: Ann Example <ann@example.com>',
      `To: ${to}`,
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Hello.',
      '--b1',
      'Content-Type: text/plain; name="note.txt"',
      'Content-Disposition: attachment; filename="note.txt"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from(`attachment of ${subject}`).toString('base64'),
      '--b1--',
      '',
    ].join('\r\n'),
  );

const children: ChildBroker[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const child of children) await child.kill();
  for (const cleanup of cleanups) await cleanup();
});

const filesDir = (appDir: string) => join(appDir, '.platform', 'files');

describe('a broker killed with SIGKILL during an inbound delivery', () => {
  it('leaves no attachment of that delivery once it starts again, and keeps the delivered ones', async () => {
    const dir = await tempDir('broker-inbound-kill-');
    cleanups.push(dir.remove);
    await writeFiles(dir.path, app);

    const first = startChild(
      { APP_DIR: dir.path, SEND: JSON.stringify(['kept', 'hang']) },
      childScript,
    );
    children.push(first);
    const delivered = (await first.next('delivered', 90_000)) as unknown as { files: string[] };
    const hanging = (await first.next('hanging', 60_000)) as unknown as { files: string[] };
    const [kept] = delivered.files as [string];
    const [orphan] = hanging.files as [string];
    // The interrupted delivery's attachment is stored and in the Function's hands.
    expect(existsSync(join(filesDir(dir.path), orphan, '1'))).toBe(true);
    await first.kill();

    const second = startChild({ APP_DIR: dir.path }, childScript);
    children.push(second);
    const ready = (await second.next('ready', 90_000)) as unknown as { files: string[] };
    await second.stop();

    expect(ready.files).toEqual([kept]);
    expect(existsSync(join(filesDir(dir.path), orphan))).toBe(false);
    expect(await readFile(join(filesDir(dir.path), kept, '1'), 'utf8')).toBe('attachment of kept');
    expect(second.stderr.join('')).toMatch(
      /inbound mail: removed the attachments of 1 delivery attempt/,
    );
  }, 240_000);
});

describe('the start of a broker', () => {
  it('removes the attachments of attempts whose holder is gone, and nothing else', async () => {
    const dir = await tempDir('broker-inbound-sweep-');
    cleanups.push(dir.remove);
    await writeFiles(dir.path, app);
    const lines: string[] = [];
    const start = () =>
      startBroker({
        appDir: dir.path,
        sdkVersion: '2.6.0',
        databaseUrl: '',
        snapshotPath: testSnapshotPath,
        logWriter: (line) => lines.push(line),
        declared: { secrets: [], searches: {}, emailAliases: ['todo'] },
        inboundFunction: 'inbound',
      });
    let broker: Broker = await start();
    cleanups.unshift(() => broker.close().catch(() => undefined));
    await broker.addFunction({
      name: 'inbound',
      entrypoint: 'functions/inbound.ts',
      access: 'system',
    });
    const to = `todo@${broker.inboundMail.addresses.domain}`;
    const attempts = async () =>
      (
        await broker.db.query<{ id: string }>(
          'SELECT id FROM platform.inbound_attempts ORDER BY id',
        )
      ).rows.map((row) => row.id);
    const fileIds = async () =>
      (await broker.db.query<{ id: string }>('SELECT id FROM platform.files ORDER BY id')).rows.map(
        (row) => row.id,
      );

    // A delivery taken, and one whose Function failed: neither leaves an attempt behind.
    const taken = await broker.inboundMail.receive({
      raw: message(to, 'kept'),
      envelopeFrom: 'ann@example.com',
    });
    const [kept] = (taken.result as { files: string[] }).files as [string];
    await expect(
      broker.inboundMail.receive({ raw: message(to, 'explode'), envelopeFrom: 'ann@example.com' }),
    ).rejects.toMatchObject({ code: 'EMAIL_HANDLER_FAILED' });
    expect(await attempts()).toEqual([]);
    expect(await fileIds()).toEqual([kept]);

    // What a broker killed mid-delivery leaves: its attempt (its holder ran before this
    // machine's last boot, so it is gone), one attachment stored and one cut off after its
    // bytes reached the disk but before its row. And an attempt of a live broker (this one).
    const dead = { host: hostname(), pid: process.pid, bootedAt: 0 };
    const [stored, halfWritten, live] = [newId('file'), newId('file'), newId('file')];
    const bytes = { data: new TextEncoder().encode('x'), name: 'x.txt', contentType: 'text/plain' };
    await broker.files.upload(systemCaller(), bytes, { id: stored });
    await broker.files.store.put(halfWritten, 1, [bytes.data]);
    await broker.files.upload(systemCaller(), bytes, { id: live });
    await broker.db.query(
      `INSERT INTO platform.inbound_attempts (id, holder, file_ids)
       VALUES ('inm_dead', $1::jsonb, $2::jsonb), ('inm_live', $3::jsonb, $4::jsonb)`,
      [
        JSON.stringify(dead),
        JSON.stringify([stored, halfWritten]),
        JSON.stringify(thisProcess()),
        JSON.stringify([live]),
      ],
    );
    await broker.close();

    broker = await start();
    expect(await attempts()).toEqual(['inm_live']);
    expect((await fileIds()).sort()).toEqual([kept, live].sort());
    for (const gone of [stored, halfWritten]) {
      expect(existsSync(join(filesDir(dir.path), gone))).toBe(false);
    }
    const { data } = await broker.files.download(systemCaller(), kept);
    expect(data.toString()).toBe('attachment of kept');
    expect(existsSync(join(filesDir(dir.path), live, '1'))).toBe(true);
    expect(lines).toContain(
      'inbound mail: removed the attachments of 1 delivery attempt(s) a stopped broker left unfinished (2 file(s)); their senders send again',
    );
  }, 120_000);
});
