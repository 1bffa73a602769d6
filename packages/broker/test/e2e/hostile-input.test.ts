// Hostile JSON and NUL bytes against a running `platform dev`: deep nesting, NUL characters,
// `__proto__` keys, out-of-range numbers and values of the wrong kind for a column are each
// refused with 400 and a clear message, never a 500 from deep inside, and write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { readDevState } from '../../src/project/dev-state.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { eventually, fixtureApp } from './fixture-app.ts';
import { ada, devFor } from './helpers.ts';

const files: Record<string, string> = {
  ...fixtureApp,
  'platform.yaml': fixtureApp['platform.yaml']!.replace(
    'functions:\n',
    `queues:
  - name: work
    function: consume
functions:
  - name: put
    entrypoint: functions/put/index.ts
    access: user
  - name: find
    entrypoint: functions/find/index.ts
    access: user
  - name: enqueue
    entrypoint: functions/enqueue/index.ts
    access: user
  - name: consume
    entrypoint: functions/consume/index.ts
    access: system
  - name: mail
    entrypoint: functions/mail/index.ts
    access: user
  - name: shout
    entrypoint: functions/shout/index.ts
    access: user
`,
  ).replace(
    'visibility: public\n',
    `visibility: public
email:
  aliases:
    - name: support
`,
  ),
  'migrations/002_things.sql': `create table things (
  id uuid primary key default gen_random_uuid(),
  title text,
  at timestamptz,
  meta jsonb,
  tags int[]
);
alter table things enable row level security;
create policy things_all on things for all to authenticated using (true) with check (true);
`,
  // The row arrives as JSON text so that any value (deep, odd keys) reaches ctx.data unchanged.
  'functions/put/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ json: s.string() }),
  handler: ({ input, data }) => data.table('things').create(JSON.parse(input.json)),
});
`,
  'functions/find/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ where: s.string() }),
  handler: async ({ input, data }) => (await data.table('things').list({ where: JSON.parse(input.where) })).length,
});
`,
  'functions/enqueue/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ payload: s.string(), key: s.optional(s.string()) }),
  handler: ({ input, jobs }) =>
    jobs.enqueue('work', JSON.parse(input.payload), { idempotencyKey: input.key ?? 'k-' + crypto.randomUUID() }),
});
`,
  'functions/mail/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ to: s.string(), subject: s.string() }),
  handler: ({ input, email }) => email.send({ from: 'support', to: input.to, subject: input.subject, text: 'hi' }),
});
`,
  'functions/shout/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ text: s.string() }),
  handler: ({ input, log }) => {
    console.log(input.text);
    log.info(input.text);
    return null;
  },
});
`,
  'functions/consume/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({ n: s.optional(s.number()) }), handler: () => null });
`,
};

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let lines: string[];

beforeAll(async () => {
  app = await tempDir('hostile-input-');
  await writeFiles(app.path, files);
  ({ dev, lines } = await devFor(app.path, { watch: false }));
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const call = (name: string, body: string) =>
  fetch(`${dev.url}/_platform/api/functions/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': ada },
    body,
  });

async function failure(
  response: Response,
): Promise<{ status: number; code: string; message: string }> {
  const text = await response.text();
  const body = JSON.parse(text) as { error?: { code: string; message: string } };
  if (!body.error)
    throw new Error(`expected an error, got ${response.status} ${text.slice(0, 200)}`);
  return { status: response.status, code: body.error.code, message: body.error.message };
}

const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const thingCount = async () =>
  (await dev.broker.db.query<{ n: number }>('select count(*)::int as n from things')).rows[0]!.n;
const jobCount = async () =>
  (await dev.broker.db.query<{ n: number }>('select count(*)::int as n from platform.jobs'))
    .rows[0]!.n;

describe('deeply nested JSON', () => {
  it('a Function call nested 5,000 levels is 400 INVALID_REQUEST naming the limit', async () => {
    const result = await failure(await call('echo', `{"text":${nested(5000)}}`));
    expect(result).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(result.message).toContain('deeper than 64 levels');
  });

  it('a data row nested 2,000 levels is refused with 400 and writes nothing', async () => {
    const row = JSON.stringify(JSON.stringify({ title: 'deep', meta: JSON.parse(nested(2000)) }));
    const result = await failure(await call('put', `{"json":${row}}`));
    expect(result.status).toBe(400);
    expect(result.message).toContain('deeper than 64 levels');
    expect(await thingCount()).toBe(0);
  });

  it('a job payload nested 2,000 levels is refused with 400 and enqueues nothing', async () => {
    const payload = JSON.stringify(`{"n":${nested(2000)}}`);
    const result = await failure(await call('enqueue', `{"payload":${payload}}`));
    expect(result.status).toBe(400);
    expect(result.message).toContain('deeper than 64 levels');
    expect(await jobCount()).toBe(0);
  });

  it('nesting within the limit is accepted', async () => {
    const response = await call(
      'put',
      JSON.stringify({ json: JSON.stringify({ meta: JSON.parse(nested(50)) }) }),
    );
    expect(response.status).toBe(200);
    await dev.broker.db.query('delete from things');
  });
});

describe('NUL characters', () => {
  it('in a Function input string is 400 INVALID_REQUEST', async () => {
    const result = await failure(await call('echo', '{"text":"a\\u0000b"}'));
    expect(result).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(result.message).toContain('NUL');
  });

  it('in a data row string is refused with 400 and writes nothing', async () => {
    const result = await failure(
      await call('put', JSON.stringify({ json: JSON.stringify({ title: 'a\u0000b' }) })),
    );
    expect(result.status).toBe(400);
    expect(result.message).toContain('NUL');
    expect(await thingCount()).toBe(0);
  });

  it('in a job payload or an idempotency key is refused with 400 and enqueues nothing', async () => {
    const payload = await failure(
      await call('enqueue', JSON.stringify({ payload: JSON.stringify({ n: 1, s: '\u0000' }) })),
    );
    expect(payload.status).toBe(400);
    const key = await failure(
      await call('enqueue', JSON.stringify({ payload: '{"n":1}', key: 'k\u0000' })),
    );
    expect(key.status).toBe(400);
    expect(key.message).toContain('NUL');
    expect(await jobCount()).toBe(0);
  });

  it('in a path or query (%00) is 400 INVALID_REQUEST before any route reads it', async () => {
    const token = (await readDevState(app.path))?.token ?? '';
    const job = await failure(
      await fetch(`${dev.url}/v1/apps/local/jobs/job_%00x`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(job).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    const list = await failure(
      await fetch(`${dev.url}/v1/apps/local/jobs?queue=work%00`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(list).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    // An escaped percent sign is no NUL.
    const fine = await fetch(`${dev.url}/v1/apps/local/jobs/job_%2500`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(fine.status).toBe(404);
  });
});

describe('values of the wrong kind', () => {
  const put = async (row: unknown) => call('put', JSON.stringify({ json: JSON.stringify(row) }));

  it('an object or array for a text column is 400, never stored as "[object Object]" or "1,2,3"', async () => {
    const object = await failure(await put({ title: { a: 1 } }));
    expect(object).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(object.message).toContain('`title` is a text column');
    const array = await failure(await put({ title: [1, 2, 3] }));
    expect(array).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(await thingCount()).toBe(0);
  });

  it('an object for a timestamptz column is 400, not 500', async () => {
    expect(await failure(await put({ at: { when: 'now' } }))).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
    });
  });

  it('json columns keep objects, array columns arrays, and an array column refuses a scalar', async () => {
    const ok = await put({
      title: 't',
      meta: { a: [1] },
      tags: [1, 2],
      at: '2026-01-01T00:00:00Z',
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      result: { title: 't', meta: { a: [1] }, tags: [1, 2] },
    });
    expect(await failure(await put({ tags: 3 }))).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
    });
    await dev.broker.db.query('delete from things');
  });

  it('a __proto__ key is 400, so a filter on it never returns every row', async () => {
    expect((await put({ title: 'a' })).status).toBe(200);
    expect((await put({ title: 'b' })).status).toBe(200);
    const where = await failure(
      await call('find', JSON.stringify({ where: '{"__proto__":{"title":"zzz"}}' })),
    );
    expect(where.status).toBe(400);
    expect(where.message).toContain('__proto__');
    const row = await failure(
      await call('put', JSON.stringify({ json: '{"__proto__":{"title":"x"}}' })),
    );
    expect(row.status).toBe(400);
    // Directly in a Function call's body as well.
    expect(await failure(await call('echo', '{"__proto__":{"text":"x"}}'))).toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
    });
    expect(await thingCount()).toBe(2);
    await dev.broker.db.query('delete from things');
  });

  it('1e309 is 400 INVALID_REQUEST, never handed to a Function as null', async () => {
    const result = await failure(await call('echo', '{"text":1e309}'));
    expect(result).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(result.message).toContain('infinity');
  });
});

describe('header and terminal injection', () => {
  it('an email whose to or subject holds CR/LF is 400 and captures nothing', async () => {
    const to = await failure(
      await call(
        'mail',
        JSON.stringify({ to: 'a@example.com\r\nBcc: x@evil.example', subject: 'hi' }),
      ),
    );
    expect(to).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(to.message).toContain('control characters');
    const subject = await failure(
      await call(
        'mail',
        JSON.stringify({ to: 'a@example.com', subject: 'hi\nBcc: x@evil.example' }),
      ),
    );
    expect(subject).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(await dev.broker.outbox.list()).toEqual([]);
    const ok = await call('mail', JSON.stringify({ to: 'a@example.com', subject: 'hi' }));
    expect(ok.status).toBe(200);
  });

  it("a Function's log line cannot forge a line of the broker or send ANSI escapes", async () => {
    const forged = '12:00:00.000 INFO  Sign-in link for ada@example.com: http://evil.example/x';
    const response = await call(
      'shout',
      JSON.stringify({ text: `ok\r\n${forged}\u001b[2J\u009b31m` }),
    );
    expect(response.status).toBe(200);
    const mine = await eventually(async () => {
      // The structured entry (`log.info`); raw stdout is split into lines, each one prefixed.
      const found = lines.filter((line) => line.includes('INFO  [shout]'));
      expect(found.length).toBe(1);
      expect(lines.filter((line) => line.includes('OUT   [shout]')).length).toBe(2);
      return found;
    });
    expect(lines.some((line) => line.startsWith('12:00:00.000'))).toBe(false);
    const printed = lines.join('\n');
    for (const control of ['\u001b', '\u009b', '\r']) expect(printed).not.toContain(control);
    for (const line of mine) {
      expect(line).not.toContain('\n');
      expect(line).toContain('ok\\r\\n12:00:00.000 INFO  Sign-in link');
      expect(line).toContain('\\x1b[2J\\x9b31m');
    }
  });
});
