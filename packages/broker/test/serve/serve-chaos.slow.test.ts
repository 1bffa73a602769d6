// Three `platform serve` nodes on one PostgreSQL, their apps' files in S3-compatible object
// storage (s3rver), behind HAProxy (Debian's package), all on loopback. Clients mix Function
// calls, row writes, file uploads and reads, job enqueues with idempotency keys, integration
// events and password sign-ins through the balancer while one node is killed with SIGKILL and
// later started again. Afterwards every acknowledged effect must be there exactly once, and the
// only failed requests may be those in flight on the killed node.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppTokens } from '../../src/auth/app-tokens.ts';
import { appDatabaseName } from '../../src/db/database-per-app.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { FakeBrowser } from '../auth/helpers.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type BalancerChecks, haproxyConfig } from '../helpers/haproxy.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { processesWithArgument } from '../helpers/processes.ts';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  deploy,
  freePort,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
} from './serve-harness.ts';

/** How many clients run at once (`CHAOS_CLIENTS` to try another number). */
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 100);
/** How long they run; a node is killed at a third of it and started again at two thirds. */
const RUN_MS = Number(process.env.CHAOS_RUN_MS ?? 60_000);
const KILL_AT_MS = RUN_MS / 3;
const RESTART_AT_MS = (RUN_MS * 2) / 3;
/** How long the jobs enqueued during the run may take to have run, once it ended. */
const SETTLE_MS = 45_000;
const PASSWORD = 'a long enough password';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: hello
    entrypoint: functions/hello.ts
    access: public
    route:
      path: /api/hello
      methods: [GET]
  - { name: write, entrypoint: functions/write.ts, access: user }
  - { name: upload, entrypoint: functions/upload.ts, access: user }
  - { name: read, entrypoint: functions/read.ts, access: user }
  - { name: enqueue, entrypoint: functions/enqueue.ts, access: user }
  - { name: consume, entrypoint: functions/consume.ts, access: system }
  - { name: tick, entrypoint: functions/tick.ts, access: system }
  - { name: share, entrypoint: functions/share.ts, access: user }
  - { name: onNote, entrypoint: functions/on-note.ts, access: system }
integrations:
  feed:
    provider: custom
    integration: feed
    account: app
    capabilities: [notes.share]
    events: { function: onNote }
queues:
  - { name: work, function: consume, maxAttempts: 10, retryDelaySeconds: 1 }
cron:
  - { name: tick, schedule: '* * * * *', function: tick, enabled: true }
`;

const sources: Record<string, string> = {
  'migrations/001_chaos.sql': `create table notes (id text primary key, body text not null);
create table runs (id text primary key, key text not null, job_id text not null, attempt int not null);
create table effects (id text primary key, key text not null);
create table ticks (id text primary key, scheduled_at text not null);
create table deliveries (id text primary key, event_id text not null, request_id text not null, at text not null);
`,
  'functions/hello.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { ok: true };
  },
});
`,
  'functions/write.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ id: s.string(), body: s.string() }),
  handler: async (ctx) => ctx.data.table('notes').create({ id: ctx.input.id, body: ctx.input.body }),
});
`,
  'functions/upload.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ base64: s.string() }),
  handler: async (ctx) => {
    const data = Uint8Array.from(atob(ctx.input.base64), (c) => c.charCodeAt(0));
    return { ref: await ctx.files.upload({ data, name: 'chaos.bin', contentType: 'application/octet-stream' }) };
  },
});
`,
  'functions/read.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ ref: s.string() }),
  handler: async (ctx) => {
    const { data } = await ctx.files.download(ctx.input.ref);
    let text = '';
    for (const byte of data) text += String.fromCharCode(byte);
    return { base64: btoa(text) };
  },
});
`,
  'functions/enqueue.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ key: s.string() }),
  handler: async (ctx) => ctx.jobs.enqueue('work', { key: ctx.input.key }, { idempotencyKey: ctx.input.key }),
});
`,
  // Every attempt is recorded; the side effect is made once per key, as a consumer of an
  // at-least-once queue makes it: a run that finds it made does nothing.
  'functions/consume.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ key: s.string() }),
  handler: async (ctx) => {
    const job = ctx.job ?? { id: 'none', attempt: 0 };
    await ctx.data.table('runs').create({ id: crypto.randomUUID(), key: ctx.input.key, job_id: job.id, attempt: job.attempt });
    const made = await ctx.data.table('effects').list({ where: { key: ctx.input.key }, limit: 1 });
    if (made.length === 0) await ctx.data.table('effects').create({ id: crypto.randomUUID(), key: ctx.input.key });
    return null;
  },
});
`,
  // Announces a note through the feed integration, whose operation emits it as an event.
  'functions/share.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ id: s.string() }),
  handler: async (ctx) => ctx.integrations.use('feed').call('notes.announce', { id: ctx.input.id }),
});
`,
  // Every delivery that reaches the handler is recorded with its attempt (the request id names
  // the delivery and the attempt number), so a second delivery of an acknowledged one shows.
  'functions/on-note.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ id: s.string(), type: s.string(), occurredAt: s.string(), integration: s.string(), provider: s.string(), bindingId: s.nullable(s.string()), data: s.object({ note: s.string() }) }),
  handler: async (ctx) => {
    await ctx.data.table('deliveries').create({ id: crypto.randomUUID(), event_id: ctx.input.id, request_id: ctx.requestId, at: new Date().toISOString() });
    return null;
  },
});
`,
  'functions/tick.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ source: s.literal('platform.cron'), name: s.string(), scheduledAt: s.string() }),
  handler: async (ctx) => {
    await ctx.data.table('ticks').create({ id: crypto.randomUUID(), scheduled_at: ctx.input.scheduledAt });
    return null;
  },
});
`,
};

/** The organisation's feed integration: its one operation emits the note it is given as an event. */
const feedManifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: private
functions:
  - { name: announce, entrypoint: functions/announce.ts, access: system }
provides:
  integration:
    name: feed
    title: Note feed
    capabilities:
      - { name: notes.share, description: Share notes. }
    operations:
      - { name: notes.announce, description: Announces a note., capability: notes.share, function: announce, fake: { deliveries: 0 } }
    events:
      - { type: note.shared, capability: notes.share, description: A note was shared., fake: { note: fake } }
`;

const feedSources: Record<string, string> = {
  'functions/announce.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ id: s.string() }),
  handler: async ({ input, integration }) => ({
    deliveries: await integration!.emit({ type: 'note.shared', id: input.id, data: { note: input.id } }),
  }),
});
`,
};

/**
 * The balancer's checks tolerate a loaded machine: a readyz slower than the check's timeout on
 * every node at once (the machine, not a node, is slow) would leave the balancer with no node
 * and answer 503.
 */
const checks: BalancerChecks = { maxconn: 4000, checkTimeout: '5s', fall: 3 };

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One request to `port` with the Host `host`, a fresh connection each time. */
function send(
  port: number,
  host: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          host,
          ...(text === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        let answer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          answer += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: answer }));
        res.on('error', reject);
      },
    );
    req.setTimeout(45_000, () => req.destroy(new Error('no answer in 45 s')));
    req.once('error', reject);
    req.end(text);
  });
}

interface Node {
  readonly port: number;
  readonly env: NodeJS.ProcessEnv;
  readonly filesDir: string;
  process: ChildProcess;
  /** The last lines it printed, for a failure's explanation. */
  readonly output: string[];
}

describe('three platform serve nodes, object storage and HAProxy under a node killed and restarted', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let s3: S3TestServer;
  let dir: { path: string; remove: () => Promise<void> };
  let lbPort: number;
  let lbBase: string;
  let appHost: string;
  let haproxy: ChildProcess;
  let appToken: string;
  let appDb: PostgresDatabase;
  const nodes: Node[] = [];
  /** HAProxy's 502, 503 and 504 answers (from the start: the setup's readiness polls too). */
  const lbErrors: { at: number; line: string }[] = [];
  const lbStates: string[] = [];

  const run = (node: Node) => {
    node.process = startService(node.env);
    for (const stream of [node.process.stdout, node.process.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        node.output.push(line);
        if (node.output.length > 200) node.output.shift();
      });
    }
  };

  beforeAll(async () => {
    [postgres, secrets, s3, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      startS3Server(),
      tempDir('serve-chaos-'),
    ]);
    lbPort = await freePort();
    lbBase = `http://localhost:${lbPort}`;
    appHost = `todo.localhost:${lbPort}`;
    const ports = [await freePort(), await freePort(), await freePort()];
    const config = join(dir.path, 'haproxy.cfg');
    await writeFile(config, haproxyConfig(lbPort, ports, checks));
    haproxy = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
    // HAProxy's own account of every request it answered with an error, naming the node.
    if (haproxy.stderr)
      createInterface({ input: haproxy.stderr }).on('line', (line) => {
        // `backend/server Tq/Tw/Tc/Tr/Ta status bytes`: the server and the status of a request.
        const logged = / (\S+\/\S+) -?\d+\/-?\d+\/-?\d+\/-?\d+\/\+?\d+ (\d{3}) /.exec(line);
        if (logged && /^50[234]$/.test(logged[2] ?? ''))
          lbErrors.push({ at: Date.now(), line: `${logged[1]} ${logged[2]}` });
        if (/ is (DOWN|UP)/.test(line)) lbStates.push(`${Date.now()} ${line}`);
      });
    const storage = s3.settings;
    for (const [index, port] of ports.entries()) {
      const nodeDir = join(dir.path, `node${index}`);
      const env = {
        ...serveEnv(postgres.url, lbBase, port, nodeDir),
        PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
        PLATFORM_S3_BUCKET: storage.bucket,
        PLATFORM_S3_ENDPOINT: storage.endpoint,
        PLATFORM_S3_REGION: storage.region,
        PLATFORM_S3_ACCESS_KEY_ID: storage.accessKeyId ?? '',
        PLATFORM_S3_SECRET_ACCESS_KEY: storage.secretAccessKey ?? '',
        PLATFORM_S3_FORCE_PATH_STYLE: 'true',
      };
      const node: Node = {
        port,
        env,
        filesDir: join(nodeDir, 'files'),
        process: undefined as unknown as ChildProcess,
        output: [],
      };
      nodes.push(node);
      run(node);
      // The first node sets up the central store (and prints the setup link) before the others.
      if (index === 0) {
        const key = await setupKey(node.process);
        await waitReady(port, `localhost:${lbPort}`);
        await waitReady(lbPort, `localhost:${lbPort}`);
        expect((await setUpAdministrator(lbBase, key)).status).toBe(200);
      }
    }
    await Promise.all(
      nodes.map((node) =>
        waitReady(node.port, `localhost:${lbPort}`).catch((error: unknown) => {
          throw new Error(`${String(error)}; it printed:\n${node.output.slice(-20).join('\n')}`);
        }),
      ),
    );
    const credential = await adaCredential(postgres.url);
    expect(await keepCredential(secrets.env, dir.path, lbBase, credential)).toBe(0);
    // The feed first: the todo app's slot names the integration it publishes.
    for (const [app, files] of [
      ['feed', { 'platform.yaml': feedManifest, ...feedSources }],
      ['todo', { 'platform.yaml': manifest, ...sources }],
    ] as const) {
      const appDir = join(dir.path, app);
      await writeFiles(appDir, files);
      await deploy(secrets.env, appDir, lbBase, app);
    }
    appDb = await PostgresDatabase.connect(
      postgres.url.replace('/postgres?', `/${appDatabaseName('todo')}?`),
      2,
    );
    appToken = (await new AppTokens(appDb, systemClock, 'todo').issue('chaos')).token;
    // Every node serves the revision, and each Function answers, before the run begins.
    for (const node of nodes) {
      const until = Date.now() + 30_000;
      while ((await send(node.port, appHost, 'GET', '/api/hello')).status !== 200) {
        if (Date.now() > until) throw new Error(`node on ${node.port} never served the app`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // Then an organisation connection to the feed, bound into the todo app's slot, as its owner makes
    // one: a connect link on the owner API, and the link's page posted (the feed asks for no
    // credentials).
    const link = await send(
      lbPort,
      `localhost:${lbPort}`,
      'POST',
      '/v1/apps/feed/connections/links',
      { kind: 'organisation', actingAs: 'ada@example.com', bind: { appId: 'todo', slot: 'feed' } },
      { authorization: `Bearer ${credential}` },
    );
    expect(link.status, link.body).toBe(201);
    const connected = await fetch((JSON.parse(link.body) as { url: string }).url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(connected.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    haproxy?.kill('SIGKILL');
    for (const node of nodes) if (node.process?.exitCode === null) node.process.kill('SIGKILL');
    // The killed node's Function processes outlive it; end them by their own ids.
    for (const node of nodes) {
      for (const pid of processesWithArgument(node.filesDir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
    }
    await appDb?.close();
    await Promise.all([postgres?.stop(), secrets?.stop(), s3?.close()]);
    await dir?.remove();
  }, 60_000);

  it(
    `keeps every acknowledged effect while ${CLIENTS} clients run for ${RUN_MS / 1000} s`,
    async () => {
      const auth = { authorization: `Bearer ${appToken}` };
      // A connection per request, like the other clients: a kept-alive connection that the balancer
      // closes while idle would fail a request for a reason no node caused.
      const fresh = new Agent({ pipelining: 0 });
      const fn = (name: string, input: unknown) =>
        send(lbPort, appHost, 'POST', `/_platform/api/functions/${name}`, input, auth);
      const result = <T>(answer: Answer) => (JSON.parse(answer.body) as { result: T }).result;

      const writes = new Map<string, string>();
      const files = new Map<string, string>();
      const jobs = new Set<string>();
      const events = new Set<string>();
      const counts: Record<string, number> = {};
      const failures: { what: string; startedAt: number; endedAt: number; why: string }[] = [];
      const wrongReads: string[] = [];
      let stop = false;
      let limited = 0;
      const began = Date.now();
      let killedAt = Number.POSITIVE_INFINITY;
      let restartedAt = Number.POSITIVE_INFINITY;

      const operations: Record<string, () => Promise<void>> = {
        hello: async () => {
          const answer = await send(lbPort, appHost, 'GET', '/api/hello');
          if (answer.status !== 200)
            throw new Error(`${answer.status} ${answer.body.slice(0, 160)}`);
        },
        write: async () => {
          const id = randomBytes(8).toString('hex');
          const body = randomBytes(24).toString('base64');
          const answer = await fn('write', { id, body });
          if (answer.status !== 200)
            throw new Error(`${answer.status} ${answer.body.slice(0, 160)}`);
          writes.set(id, body);
        },
        upload: async () => {
          const base64 = randomBytes(512 + Math.floor(Math.random() * 4096)).toString('base64');
          const answer = await fn('upload', { base64 });
          if (answer.status !== 200)
            throw new Error(`${answer.status} ${answer.body.slice(0, 160)}`);
          files.set(result<{ ref: string }>(answer).ref, base64);
        },
        read: async () => {
          const known = [...files.entries()];
          const [ref, base64] = known[Math.floor(Math.random() * known.length)] ?? [];
          if (ref === undefined) return;
          const answer = await fn('read', { ref });
          if (answer.status !== 200)
            throw new Error(`${answer.status} ${answer.body.slice(0, 160)}`);
          if (result<{ base64: string }>(answer).base64 !== base64) wrongReads.push(ref);
        },
        enqueue: async () => {
          const key = `job-${randomBytes(8).toString('hex')}`;
          const answer = await fn('enqueue', { key });
          if (answer.status !== 200)
            throw new Error(`${answer.status} ${answer.body.slice(0, 160)}`);
          // The same key again answers the same job: the enqueue is safe to repeat.
          jobs.add(key);
        },
        share: async () => {
          const id = `note-${randomBytes(8).toString('hex')}`;
          const answer = await fn('share', { id });
          if (answer.status !== 200)
            throw new Error(`${answer.status} ${answer.body.slice(0, 160)}`);
          // One delivery recorded: to the todo app's one subscribed slot.
          if (result<{ deliveries: number }>(answer).deliveries !== 1)
            throw new Error(`emitted with ${answer.body}`);
          events.add(id);
        },
        signIn: async () => {
          const browser = new FakeBrowser(
            undefined,
            lbBase,
            (url, init) =>
              undiciFetch(url, {
                ...init,
                redirect: 'manual',
                dispatcher: fresh,
              } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>,
          );
          const answer = await browser.signInByPassword('ada@example.com', PASSWORD);
          // More than five sign-ins of one address at the same moment meet its limit, on whichever
          // nodes they reach (docs/scaling.md): a correct answer, counted apart.
          if (answer.status === 429) {
            limited += 1;
            return;
          }
          if (answer.status !== 303) throw new Error(`${answer.status}`);
        },
      };
      // Out of every 20 operations: 5 calls, 4 writes, 3 uploads, 3 reads, 3 enqueues, 1 event,
      // 1 sign-in.
      const mix = [
        ...Array<string>(5).fill('hello'),
        ...Array<string>(4).fill('write'),
        ...Array<string>(3).fill('upload'),
        ...Array<string>(3).fill('read'),
        ...Array<string>(3).fill('enqueue'),
        'share',
        'signIn',
      ];
      const client = async (index: number) => {
        for (let turn = index; !stop; turn++) {
          const what = mix[turn % mix.length] as string;
          const startedAt = Date.now();
          try {
            await (operations[what] as () => Promise<void>)();
            counts[what] = (counts[what] ?? 0) + 1;
          } catch (error) {
            failures.push({
              what,
              startedAt,
              endedAt: Date.now(),
              why:
                error instanceof Error
                  ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}`
                  : String(error),
            });
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
      const victim = nodes[1] as Node;
      await new Promise((resolve) => setTimeout(resolve, KILL_AT_MS));
      killedAt = Date.now();
      victim.process.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, RESTART_AT_MS - (Date.now() - began)));
      restartedAt = Date.now();
      run(victim);
      await new Promise((resolve) => setTimeout(resolve, RUN_MS - (Date.now() - began)));
      stop = true;
      await Promise.all(clients);
      const ranMs = Date.now() - began;
      // The restarted node serves the app again (the reads through each node below need it).
      const backUntil = Date.now() + 60_000;
      while (
        (await send(victim.port, appHost, 'GET', '/api/hello').catch(() => undefined))?.status !==
        200
      ) {
        if (Date.now() > backUntil)
          throw new Error(
            `the restarted node never served the app: ${victim.output.slice(-20).join('\n')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const backMs = Date.now() - restartedAt;

      const settleUntil = Date.now() + SETTLE_MS;
      // Of `keys`, those `column` of `table` still lacks when all are there or the settling ends.
      const stillMissing = async (keys: Iterable<string>, table: string, column: string) => {
        let missing = [...keys];
        while (missing.length > 0 && Date.now() < settleUntil) {
          const { rows } = await appDb.query<{ key: string }>(
            `SELECT DISTINCT ${column} AS key FROM ${table} WHERE ${column} = ANY($1)`,
            [missing],
          );
          const done = new Set(rows.map((row) => row.key));
          missing = missing.filter((key) => !done.has(key));
          if (missing.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
        }
        return missing;
      };
      // Every acknowledged job runs; the queue retries what the killed node held once its lease ends.
      const missingJobs = await stillMissing(jobs, 'effects', 'key');
      // Every acknowledged event reaches the handler; an attempt the killed node held is made
      // again once its hold ends.
      const missingEvents = await stillMissing(events, 'deliveries', 'event_id');
      // An event that reached the handler more than once. The handler always acknowledges, so a
      // second delivery is allowed only where the first's acknowledgement never reached a
      // broker: the same attempt again (one request id), begun before the node holding it died.
      const { rows: repeated } = await appDb.query<{
        event_id: string;
        runs: number;
        attempts: number;
        first: string;
      }>(
        `SELECT event_id, count(*)::int AS runs, count(DISTINCT request_id)::int AS attempts,
                min(at) AS first
           FROM deliveries GROUP BY event_id HAVING count(*) > 1`,
      );
      const { rows: effectCounts } = await appDb.query<{ key: string; n: number }>(
        'SELECT key, count(*)::int AS n FROM effects WHERE key = ANY($1) GROUP BY key',
        [[...jobs]],
      );
      const { rows: runCounts } = await appDb.query<{ n: number; keys: number }>(
        'SELECT n, count(*)::int AS keys FROM (SELECT key, count(*)::int AS n FROM runs GROUP BY key) r GROUP BY n ORDER BY n',
      );
      const { rows: notes } = await appDb.query<{ id: string; body: string }>(
        'SELECT id, body FROM notes WHERE id = ANY($1)',
        [[...writes.keys()]],
      );
      const stored = new Map(notes.map((row) => [row.id, row.body]));
      const lostWrites = [...writes].filter(([id, body]) => stored.get(id) !== body);
      const { rows: ticks } = await appDb.query<{ scheduled_at: string; n: number }>(
        'SELECT scheduled_at, count(*)::int AS n FROM ticks GROUP BY scheduled_at ORDER BY scheduled_at',
      );

      // Every acknowledged file reads back byte-identical through each node, the restarted one too.
      const unreadable: string[] = [];
      const refs = [...files];
      for (const node of nodes) {
        const queue = [...refs];
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            for (let next = queue.shift(); next; next = queue.shift()) {
              const [ref, base64] = next;
              const answer = await send(
                node.port,
                appHost,
                'POST',
                '/_platform/api/functions/read',
                { ref },
                auth,
              ).catch((error: unknown) => ({ status: 0, body: String(error) }));
              if (answer.status !== 200 || result<{ base64: string }>(answer).base64 !== base64)
                unreadable.push(`${ref} via ${node.port}: ${answer.status}`);
            }
          }),
        );
      }

      // In flight on the killed node: the balancer answered 502 (the node's connection broke) for
      // a request sent before it took the node out. A request sent in the moment the dying
      // process still accepted connections counts too: it reached that node.
      // The balancer's errors while the clients ran (the setup polled it before any node was up).
      const runErrors = lbErrors.filter((error) => error.at >= began).map((error) => error.line);
      const downAt =
        lbStates
          .filter((line) => line.includes('n1 is DOWN'))
          .map((line) => Number(line.split(' ')[0]))
          .find((at) => at >= killedAt) ?? killedAt + 5_000;
      const inFlightAtKill = failures.filter(
        (failure) =>
          failure.why.startsWith('502') &&
          failure.startedAt <= downAt &&
          failure.endedAt >= killedAt &&
          failure.endedAt <= downAt + 5_000,
      );
      const others = failures.filter((failure) => !inFlightAtKill.includes(failure));
      console.log(
        [
          `${CLIENTS} clients for ${ranMs} ms; node n1 killed at ${killedAt - began} ms, started again at ${restartedAt - began} ms (it served the app again ${backMs} ms after its start)`,
          `answered: ${Object.entries(counts)
            .map(([what, n]) => `${n} ${what}`)
            .join(', ')} (${limited} sign-ins refused by the address's limit)`,
          `acknowledged: ${writes.size} writes, ${files.size} files, ${jobs.size} jobs, ${events.size} events; ${ticks.length} cron occurrences`,
          `events delivered again after the node holding their attempt died: ${repeated.length}`,
          `consumer runs per job: ${runCounts.map((row) => `${row.keys} jobs ran ${row.n}x`).join(', ')}`,
          `failed: ${failures.length}, of which ${inFlightAtKill.length} were in flight on the killed node (taken out by HAProxy ${downAt - killedAt} ms after the kill); HAProxy answered ${runErrors.length} with an error, ${runErrors.filter((line) => line.startsWith('nodes/n1 ')).length} of them from the killed node n1`,
          ...failures
            .slice(0, 30)
            .map(
              (failure) =>
                `  ${failure.what} ${failure.startedAt - killedAt}..${failure.endedAt - killedAt} ms from the kill: ${failure.why.split('\n')[0]}`,
            ),
          ...runErrors
            .filter((line) => !line.startsWith('nodes/n1 '))
            .slice(0, 10)
            .map((line) => `  HAProxy answered, not from the killed node: ${line}`),
        ].join('\n'),
      );
      expect(lostWrites).toEqual([]);
      expect(wrongReads).toEqual([]);
      expect(unreadable).toEqual([]);
      expect(missingJobs).toEqual([]);
      expect(missingEvents).toEqual([]);
      expect(
        repeated.filter((row) => row.attempts !== 1 || Date.parse(row.first) > killedAt),
      ).toEqual([]);
      expect(effectCounts.filter((row) => row.n !== 1)).toEqual([]);
      expect(ticks.filter((tick) => tick.n !== 1)).toEqual([]);
      // A run of a minute or more passes a minute's start, when the schedule fires.
      if (RUN_MS >= 60_000) expect(ticks.length).toBeGreaterThan(0);
      // The only failures: requests in flight on the killed node, at most one per client.
      expect(others).toEqual([]);
      expect(inFlightAtKill.length).toBeLessThanOrEqual(CLIENTS);
      // And HAProxy says each came from the killed node.
      expect(runErrors.filter((line) => !line.startsWith('nodes/n1 '))).toEqual([]);
      expect(counts.hello ?? 0).toBeGreaterThan(0);
      expect(counts.signIn ?? 0).toBeGreaterThan(0);
      expect(counts.share ?? 0).toBeGreaterThan(0);
    },
    RUN_MS + 120_000,
  );
});
