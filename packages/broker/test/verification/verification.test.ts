// Development verification through `platform dev`: which declared Functions succeeded since
// their code last changed, reached the way their role asks for, and `platform verify` running
// the enabled cron and exiting 1 while something is not exercised.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { main } from '../../src/cli/main.ts';
import { eventually } from '../e2e/fixture-app.ts';
import { devFor } from '../e2e/helpers.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const fn = (
  input: string,
  body: string,
) => `import { defineFunction, inboundEmailSchema, s } from '@platform/server';
export default defineFunction({ input: ${input}, handler: async () => ${body} });
`;
const cronInput =
  "s.object({ source: s.literal('platform.cron'), name: s.string(), scheduledAt: s.string() })";

const files: Record<string, string> = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: hello
    entrypoint: functions/hello.ts
    access: public
  - name: consume
    entrypoint: functions/consume.ts
    access: system
  - name: tick
    entrypoint: functions/tick.ts
    access: system
  - name: idle
    entrypoint: functions/idle.ts
    access: system
  - name: inbound
    entrypoint: functions/inbound.ts
    access: system
queues:
  - name: work
    function: consume
cron:
  - name: tick
    schedule: "0 0 1 1 *"
    function: tick
    timezone: UTC
  - name: idle
    schedule: "0 0 1 1 *"
    function: idle
    timezone: UTC
    enabled: false
email:
  aliases:
    - name: app
  inbound:
    function: inbound
`,
  'functions/hello.ts': fn('s.object({})', "'hi'"),
  'functions/consume.ts': fn('s.object({})', 'null'),
  'functions/tick.ts': fn(cronInput, 'null'),
  'functions/idle.ts': fn(cronInput, 'null'),
  'functions/inbound.ts': fn('inboundEmailSchema', 'null'),
};

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;

beforeAll(async () => {
  app = await tempDir('verify-');
  await writeFiles(app.path, files);
  ({ dev } = await devFor(app.path));
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    cwd: app.path,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const missing = async () => {
  const { out } = await cli('verify');
  return [...out.matchAll(/^not exercised: (\w+)/gm)].map((m) => m[1]);
};

describe('platform verify', () => {
  it('lists every Function not exercised and exits 1; running the enabled cron exercises its Function', async () => {
    const { code, out, err } = await cli('verify');
    expect(err).toBe('');
    expect(code).toBe(1);
    expect(out).toContain('cron tick: succeeded');
    // The disabled schedule is not run, so its Function stays unexercised.
    expect(out).not.toContain('cron idle');
    expect(await missing()).toEqual(['hello', 'consume', 'idle', 'inbound']);
  });

  it('counts a queue consumer only when a job ran it, not a direct invocation', async () => {
    expect((await cli('invoke', 'consume', '{}')).code).toBe(0);
    expect(await missing()).toContain('consume');
    await dev.broker.jobs.service.enqueue('work', { payload: {}, idempotencyKey: 'once' });
    await eventually(async () => expect(await missing()).not.toContain('consume'));
  });

  it('counts the inbound email Function when a synthetic message reached it', async () => {
    const eml = join(app.path, 'in.eml');
    const domain = dev.broker.inboundMail.addresses.domain;
    await writeFile(
      eml,
      `From: ann@example.com\r\nTo: app@${domain}\r\nSubject: Hi\r\n\r\nHello.\r\n`,
    );
    const received = await cli('mail', 'receive', eml);
    expect(received.err).toBe('');
    expect(await missing()).not.toContain('inbound');
  });

  it('counts an ordinary Function run by platform invoke or a browser call', async () => {
    expect((await cli('invoke', 'hello')).code).toBe(0);
    expect(await missing()).toEqual(['idle']);
  });

  it('exits 0 once everything is exercised, and forgets a Function whose code changed', async () => {
    expect((await cli('invoke', 'idle')).code).toBe(1);
    await cli('cron', 'run', 'idle', '--wait');
    const done = await cli('verify');
    expect(done.code).toBe(0);
    expect(done.out).toContain('All 5 Function(s) were exercised');
    await writeFile(join(app.path, 'functions/hello.ts'), fn('s.object({})', "'hello again'"));
    await eventually(async () => expect(await missing()).toEqual(['hello']));
    const browser = await fetch(`${dev.url}/_platform/api/functions/hello`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(browser.status).toBe(200);
    expect((await cli('verify')).code).toBe(0);
  });
});
