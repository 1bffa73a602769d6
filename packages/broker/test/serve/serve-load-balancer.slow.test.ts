// Three `platform serve` nodes on one PostgreSQL behind HAProxy (Debian's package, loopback
// only), as an operator runs them: 50 callers call the app's Function through the load
// balancer while one node is killed with SIGKILL. Only requests that were in flight on that
// node may fail; HAProxy's health checks and retries carry the rest to the other nodes.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/broker.ts';
import { type BalancerChecks, haproxyConfig } from '../helpers/haproxy.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { processesWithArgument } from '../helpers/processes.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaId,
  call,
  deploy,
  freePort,
  HELLO_MANIFEST,
  issueAccountCredential,
  keepCredential,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
  withCentral,
} from './serve-harness.ts';

const manifest = HELLO_MANIFEST;

const helloSource = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async () => {
    // A few milliseconds of work, so requests are in flight when the node dies.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { ok: true };
  },
});
`;

const CALLERS = 50;
const RUN_MS = 12_000;
const KILL_AT_MS = 4_000;

/** Two failed readyz checks of 2 s take a node out. */
const checks: BalancerChecks = { maxconn: 2000, checkTimeout: '2s', fall: 2 };

describe('three platform serve nodes behind HAProxy', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let lbPort: number;
  let lbBase: string;
  let haproxy: ChildProcess;
  const lbLog: string[] = [];
  const nodes: { port: number; process: ChildProcess; filesDir: string }[] = [];

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-lb-'),
    ]);
    lbPort = await freePort();
    lbBase = `http://localhost:${lbPort}`;
    const ports = [await freePort(), await freePort(), await freePort()];
    const config = join(dir.path, 'haproxy.cfg');
    await writeFile(config, haproxyConfig(lbPort, ports, checks));
    haproxy = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n'))
        if (/ 50[34] |DOWN|UP/.test(line)) lbLog.push(line);
    });
    // Every node's {base_url} is the load balancer's: the address callers know.
    for (const [index, port] of ports.entries()) {
      const nodeDir = join(dir.path, `node${index}`);
      const env = {
        ...serveEnv(postgres.url, lbBase, port, nodeDir),
        PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
      };
      const child = startService(env);
      nodes.push({ port, process: child, filesDir: join(nodeDir, 'files') });
      // The first node sets up the central store (and prints the setup link) before the others.
      if (index === 0) {
        const key = await setupKey(child);
        await waitReady(port, `localhost:${lbPort}`);
        // And HAProxy's health checks have put it in service.
        await waitReady(lbPort, `localhost:${lbPort}`);
        expect((await setUpAdministrator(lbBase, key)).status).toBe(200);
      }
    }
    await Promise.all(nodes.map((node) => waitReady(node.port, `localhost:${lbPort}`)));
    const token = await withCentral(postgres.url, async (central) =>
      issueAccountCredential(central, await adaId(central), 'test CLI'),
    );
    expect(await keepCredential(secrets.env, dir.path, lbBase, token)).toBe(0);
    const appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': helloSource,
    });
    await deploy(secrets.env, appDir, lbBase, 'todo');
    // Every node serves the revision before the run begins.
    for (const node of nodes) {
      const until = Date.now() + 15_000;
      while ((await call(node.port, `todo.localhost:${lbPort}`, '/api/hello')).status !== 200) {
        if (Date.now() > until) throw new Error(`node on ${node.port} never served the app`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 150_000);

  afterAll(async () => {
    haproxy?.kill('SIGKILL');
    for (const node of nodes) if (node.process.exitCode === null) node.process.kill('SIGKILL');
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
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  it('loses only the requests in flight on a node killed under 50 callers', async () => {
    const failures: { startedAt: number; what: string }[] = [];
    let succeeded = 0;
    let stop = false;
    const began = Date.now();
    let killedAt = Number.POSITIVE_INFINITY;
    const caller = async () => {
      while (!stop) {
        const startedAt = Date.now();
        try {
          const answer = await call(lbPort, `todo.localhost:${lbPort}`, '/api/hello');
          if (answer.status === 200) succeeded += 1;
          else failures.push({ startedAt, what: `${answer.status} ${answer.body.slice(0, 120)}` });
        } catch (error) {
          failures.push({ startedAt, what: String(error) });
        }
      }
    };
    const callers = Array.from({ length: CALLERS }, caller);
    await new Promise((resolve) => setTimeout(resolve, KILL_AT_MS));
    const victim = nodes[1] as (typeof nodes)[number];
    killedAt = Date.now();
    victim.process.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, RUN_MS - (Date.now() - began)));
    stop = true;
    await Promise.all(callers);
    const late = failures.filter((failure) => failure.startedAt > killedAt);
    console.log(
      `${succeeded} requests answered, ${failures.length} failed (${late.length} begun after the kill) over ${Date.now() - began} ms; ${CALLERS} callers, one node of three killed at ${killedAt - began} ms`,
    );
    for (const failure of failures.slice(0, 10)) {
      console.log(
        `  failed, begun ${failure.startedAt - killedAt} ms from the kill: ${failure.what}`,
      );
    }
    // HAProxy's own account of what failed, and when it took the killed node out.
    console.log(
      lbLog
        .filter((line) => / 50[34] |n1 is/.test(line))
        .slice(0, 8)
        .join('\n'),
    );
    expect(succeeded).toBeGreaterThan(0);
    // At most every caller's one request in flight at the kill; none begun after it.
    expect(failures.length).toBeLessThanOrEqual(CALLERS);
    expect(late).toEqual([]);
  }, 60_000);
});
