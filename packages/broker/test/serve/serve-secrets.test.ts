// A deployed app's secrets on two `platform serve` nodes of one PostgreSQL, each in its own
// process: a value set through node A with `platform secrets set` is read by a Function on node
// B, a changed or removed value reaches B within the bound, the value is never listed, printed
// by either node, stored in clear or written into the central store's rows; and only the app's
// owner or an administrator may manage them, never an app access token or another member.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppTokens } from '../../src/auth/app-tokens.ts';
import { appDatabaseName } from '../../src/db/database-per-app.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { SECRET_CACHE_MS } from '../../src/serve/app-secrets.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  adaId,
  call,
  freePort,
  issueAccountCredential,
  keepCredential,
  cli as platformCli,
  serveEnv,
  setSecret as setSecretAt,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
  withCentral,
} from './serve-harness.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
secrets:
  - API_KEY
functions:
  - name: reveal
    entrypoint: functions/reveal/index.ts
    access: public
    route:
      path: /api/reveal
      methods: [GET]
`;

// Answers a digest of the value, never the value; and prints the value, which the node's log
// must show redacted.
const revealSource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ secrets }) => {
    const value = await secrets.get('API_KEY');
    console.log('the key is', value);
    if (value === undefined) return { digest: null };
    const bytes = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value));
    return { digest: [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('') };
  },
});
`;

const digest = (value: string) => createHash('sha256').update(value).digest('hex');
/** Planted values: a leak anywhere is found by searching for them. */
const FIRST = 'sk_live_PLANTED_first_4f1d9a7c2e';
const SECOND = 'sk_live_PLANTED_second_8b3e6d0f5a';

/** How long node B may take to read a value changed through node A (the cache, and margin). */
const CHANGE_BOUND_MS = SECRET_CACHE_MS + 2_000;

interface Node {
  readonly port: number;
  readonly base: string;
  readonly process: ChildProcess;
  output: string;
}

describe("a deployed app's secrets on two platform serve nodes", () => {
  let postgres: PostgresServer;
  let keyring: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let appDir: string;
  let eveToken = '';
  let adaToken = '';
  const nodes: Node[] = [];

  const startNode = async (name: string): Promise<Node> => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const env = {
      ...serveEnv(postgres.url, base, port, join(dir.path, name)),
      PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
    };
    const one: Node = { port, base, process: startService(env), output: '' };
    const keep = (chunk: Buffer) => {
      one.output += chunk.toString('utf8');
    };
    one.process.stdout?.on('data', keep);
    one.process.stderr?.on('data', keep);
    nodes.push(one);
    return one;
  };

  const cli = (args: string[]) => platformCli(keyring.env, args);

  /** `platform secrets set` of the vault app with the value piped in, as a script would. */
  const setSecret = (node: Node, name: string, value: string) =>
    setSecretAt(keyring.env, node.base, 'vault', name, value);

  /** The digest node `node`'s Function answers for API_KEY (null when unset). */
  const digestAt = async (node: Node): Promise<string | null> => {
    const answer = await call(node.port, `vault.localhost:${node.port}`, '/api/reveal');
    expect(answer.status, `${answer.body}\n${node.output.slice(-3000)}`).toBe(200);
    return (JSON.parse(answer.body) as { result: { digest: string | null } }).result.digest;
  };

  /** Milliseconds until `node` answers `expected`; throws past the bound. */
  const reads = async (node: Node, expected: string | null): Promise<number> => {
    const began = performance.now();
    for (;;) {
      const seen = await digestAt(node);
      const ms = performance.now() - began;
      if (seen === expected) return ms;
      if (ms > CHANGE_BOUND_MS) throw new Error(`node still reads another value after ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const api = (node: Node, path: string, token: string, init: RequestInit = {}) =>
    fetch(`${node.base}/v1/apps/vault/secrets${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  beforeAll(async () => {
    [postgres, keyring, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-secrets-'),
    ]);
    appDir = join(dir.path, 'vault');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/reveal/index.ts': revealSource,
    });
    const a = await startNode('a');
    expect((await setUpAdministrator(a.base, await setupKey(a.process))).status).toBe(200);
    const b = await startNode('b');
    await Promise.all([a, b].map((one) => waitReady(one.port, `localhost:${one.port}`)));
    adaToken = await adaCredential(postgres.url);
    eveToken = await withCentral(postgres.url, async (central) => {
      // Eve is a member who neither owns the app nor administers the organisation.
      await new Memberships(central).invite(await adaId(central), 'eve@example.com');
      const eve = await central.query<{ id: string }>(
        `INSERT INTO platform.accounts (id, email, state, created_at)
         VALUES (gen_random_uuid(), 'eve@example.com', 'confirmed', now()) RETURNING id::text`,
      );
      return issueAccountCredential(central, eve.rows[0]?.id as string, 'eve CLI');
    });
    for (const one of [a, b]) {
      expect(await keepCredential(keyring.env, dir.path, one.base, adaToken)).toBe(0);
    }
    const deployed = await cli(['deploy', appDir, '--to', a.base, '--app', 'vault']);
    expect(deployed.err).toBe('');
    expect(deployed.code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const one of nodes) if (one.process.exitCode === null) one.process.kill('SIGKILL');
    await Promise.all([postgres?.stop(), keyring?.stop()]);
    await dir?.remove();
  });

  it('reads on node B a value set through node A, and a changed one within the bound', async () => {
    const [a, b] = nodes as [Node, Node];
    await reads(b, null);
    const set = await setSecret(a, 'API_KEY', FIRST);
    expect(set.err).toBe('');
    expect(set.code).toBe(0);
    expect(set.out).toBe(`Set API_KEY of vault; every node of ${a.base} reads it.`);
    // B read "unset" a moment ago and may hold that for the cache's length.
    const first = await reads(b, digest(FIRST));
    expect(await digestAt(a)).toBe(digest(FIRST));
    expect((await setSecret(a, 'API_KEY', SECOND)).code).toBe(0);
    const changed = await reads(b, digest(SECOND));
    console.log(
      `node B read the value set through A after ${Math.round(first)} ms, a changed value after ${Math.round(changed)} ms (bound ${CHANGE_BOUND_MS} ms)`,
    );
  }, 60_000);

  it('lists names and times only, and never shows a value anywhere', async () => {
    const [a, b] = nodes as [Node, Node];
    const listed = await cli(['secrets', 'list', '--to', b.base, '--app', 'vault']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^API_KEY {2}set \d{4}-\d\d-\d\dT/);
    const json = await cli(['secrets', 'list', '--to', a.base, '--app', 'vault', '--json']);
    const body = JSON.parse(json.out) as { secrets: Record<string, unknown>[] };
    expect(body.secrets.map((one) => Object.keys(one).sort())).toEqual([['name', 'updatedAt']]);
    // The Functions printed the value on both nodes: the log shows it redacted.
    expect(a.output + b.output).toContain('the key is');
    // Every row of the central store and of the app's database, as text: ciphertext only.
    const dump = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string }>(
          `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
            WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
        );
        const texts: string[] = [];
        for (const { name } of rows) {
          texts.push(JSON.stringify((await client.query(`SELECT * FROM ${name}`)).rows));
        }
        return texts.join('\n');
      } finally {
        await client.end();
      }
    };
    const stored = [
      await dump(postgres.url.replace('/postgres?', '/platform_central?')),
      await dump(postgres.url.replace('/postgres?', `/${appDatabaseName('vault')}?`)),
    ].join('\n');
    expect(stored).toContain('API_KEY');
    for (const planted of [FIRST, SECOND, 'PLANTED']) {
      for (const seen of [a.output, b.output, listed.out, json.out, stored]) {
        expect(seen).not.toContain(planted);
      }
    }
  });

  it('refuses app access tokens and members who neither own the app nor administer', async () => {
    const [a] = nodes as [Node];
    const appToken = await (async () => {
      const db = new pg.Client({
        connectionString: postgres.url.replace('/postgres?', `/${appDatabaseName('vault')}?`),
      });
      await db.connect();
      try {
        const tokens = new AppTokens(
          { query: (text: string, params?: unknown[]) => db.query(text, params) } as never,
          systemClock,
          'vault',
        );
        return (await tokens.issue('ci')).token;
      } finally {
        await db.end();
      }
    })();
    const put = (token: string) =>
      api(a, '/API_KEY', token, { method: 'PUT', body: JSON.stringify({ value: 'stolen' }) });
    const byToken = await put(appToken);
    expect(byToken.status).toBe(401);
    expect((await byToken.json()).error.code).toBe('AUTH_REQUIRED');
    const byEve = await put(eveToken);
    expect(byEve.status).toBe(403);
    expect((await byEve.json()).error.code).toBe('PERMISSION_DENIED');
    expect((await api(a, '', eveToken)).status).toBe(403);
    expect(await digestAt(a)).toBe(digest(SECOND));
  });

  it('refuses bad names and values without echoing the value', async () => {
    const [a] = nodes as [Node];
    const bad = await api(a, '/api_key', adaToken, {
      method: 'PUT',
      body: JSON.stringify({ value: FIRST }),
    });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toContain('INVALID_INPUT');
    expect(text).not.toContain(FIRST);
    const reserved = await api(a, '/PLATFORM_TOKEN', adaToken, {
      method: 'PUT',
      body: JSON.stringify({ value: FIRST }),
    });
    expect(reserved.status).toBe(400);
    const empty = await api(a, '/API_KEY', adaToken, {
      method: 'PUT',
      body: JSON.stringify({ value: '' }),
    });
    expect(empty.status).toBe(400);
  });

  it('removes a value through node B; node A reads null within the bound', async () => {
    const [a, b] = nodes as [Node, Node];
    const removed = await cli(['secrets', 'remove', 'API_KEY', '--to', b.base, '--app', 'vault']);
    expect(removed.code).toBe(0);
    expect(removed.out).toBe('Removed API_KEY from vault.');
    await reads(a, null);
    const again = await cli(['secrets', 'remove', 'API_KEY', '--to', b.base, '--app', 'vault']);
    expect(again.code).not.toBe(0);
    expect(again.err).toContain('vault has no secret API_KEY');
  }, 30_000);
});
