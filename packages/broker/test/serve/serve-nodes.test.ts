// Several `platform serve` nodes on one PostgreSQL, each in its own process with a files folder
// of its own: a deployment or rollback made through one node is served by every node, and a
// node that starts later serves the active revision without having received it.
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENTS_FOLDER, pruneRevisions } from '../../src/serve/revision-folders.ts';
import { writeFiles } from '../helpers/broker.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  adaCredential,
  call,
  freePort,
  HELLO_MANIFEST,
  keepCredential,
  cli as platformCli,
  serveEnv,
  setUpAdministrator,
  setupKey,
  startService,
  waitReady,
  withCentral,
} from './serve-harness.ts';

const manifest = HELLO_MANIFEST;

const helloSource = (version: string) => `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async () => ({ version: '${version}' }),
});
`;

/** How long another node may take to serve a revision once its activation answered. */
const FOLLOW_BOUND_MS = 15_000;

/** One `platform serve` node: its port, base URL and process. */
interface Node {
  readonly port: number;
  readonly base: string;
  readonly process: ChildProcess;
}

describe('several platform serve nodes on one PostgreSQL', () => {
  let postgres: PostgresServer;
  let secrets: SecretService;
  let dir: { path: string; remove: () => Promise<void> };
  let appDir: string;
  const nodes: Node[] = [];

  /** A node with files folder `name` under the test's folder, the credential key shared. */
  const startNode = async (name: string): Promise<Node> => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const env = {
      ...serveEnv(postgres.url, base, port, join(dir.path, name)),
      PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
    };
    const node = { port, base, process: startService(env) };
    nodes.push(node);
    return node;
  };

  const ready = (node: Node) => waitReady(node.port, `localhost:${node.port}`);

  /** The version `node` answers for the app's Function, or its status when it does not. */
  const versionAt = async (node: Node): Promise<string> => {
    const answer = await call(node.port, `todo.localhost:${node.port}`, '/api/hello');
    if (answer.status !== 200) return String(answer.status);
    return (JSON.parse(answer.body) as { result: { version: string } }).result.version;
  };

  /** Milliseconds until `node` answers `version`; throws past the bound. */
  const follows = async (node: Node, version: string): Promise<number> => {
    const began = Date.now();
    let seen = '';
    while (Date.now() - began < FOLLOW_BOUND_MS) {
      seen = await versionAt(node);
      if (seen === version) return Date.now() - began;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${node.base} still answers ${seen}, not ${version}`);
  };

  const cli = (args: string[]) => platformCli(secrets.env, args);
  const deployThrough = (node: Node) => cli(['deploy', appDir, '--to', node.base, '--app', 'todo']);

  beforeAll(async () => {
    [postgres, secrets, dir] = await Promise.all([
      startPostgres(),
      startSecretService(),
      tempDir('serve-nodes-'),
    ]);
    appDir = join(dir.path, 'todo');
    await writeFiles(appDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': helloSource('one'),
    });
    const a = await startNode('a');
    expect((await setUpAdministrator(a.base, await setupKey(a.process))).status).toBe(200);
    const b = await startNode('b');
    await Promise.all([ready(a), ready(b)]);
    const token = await adaCredential(postgres.url);
    for (const node of [a, b]) {
      expect(await keepCredential(secrets.env, dir.path, node.base, token)).toBe(0);
    }
  }, 90_000);

  afterAll(async () => {
    for (const node of nodes) if (node.process.exitCode === null) node.process.kill('SIGKILL');
    await Promise.all([postgres?.stop(), secrets?.stop()]);
    await dir?.remove();
  });

  let first: string;
  let lastVersion: string;

  it('serves a deployment made through node A from node B, which never received it', async () => {
    const [a, b] = nodes as [Node, Node];
    expect(await versionAt(b)).toBe('404');
    const deployed = await deployThrough(a);
    expect(deployed.err).toBe('');
    expect(deployed.code).toBe(0);
    first = /Deployed (dep_\S+) of todo/.exec(deployed.out)?.[1] as string;
    expect(await versionAt(a)).toBe('one');
    const ms = await follows(b, 'one');
    console.log(`node B served the first revision ${ms} ms after the deployment answered`);
  }, 90_000);

  it('switches node B to a new revision deployed through node A within the bound', async () => {
    const [a, b] = nodes as [Node, Node];
    await writeFiles(appDir, { 'functions/hello/index.ts': helloSource('two') });
    const deployed = await deployThrough(a);
    expect(deployed.code).toBe(0);
    expect(await versionAt(a)).toBe('two');
    const ms = await follows(b, 'two');
    console.log(`node B served the new revision ${ms} ms after the deployment answered`);
  }, 90_000);

  it('reaches node A with a rollback made through node B', async () => {
    const [a, b] = nodes as [Node, Node];
    const rolled = await cli(['rollback', first, '--to', b.base, '--app', 'todo']);
    expect(rolled.err).toBe('');
    expect(rolled.code).toBe(0);
    expect(await versionAt(b)).toBe('one');
    const ms = await follows(a, 'one');
    console.log(`node A served the rolled-back revision ${ms} ms after the rollback answered`);
  }, 90_000);

  it('orders deployments made through both nodes at once: both nodes serve the one recorded last', async () => {
    const [a, b] = nodes as [Node, Node];
    // Two app folders, so each node receives a revision of its own.
    const otherDir = join(dir.path, 'todo-other');
    await writeFiles(appDir, { 'functions/hello/index.ts': helloSource('three') });
    await writeFiles(otherDir, {
      'platform.yaml': manifest,
      'functions/hello/index.ts': helloSource('four'),
    });
    const [viaA, viaB] = await Promise.all([
      deployThrough(a),
      cli(['deploy', otherDir, '--to', b.base, '--app', 'todo']),
    ]);
    expect(viaA.code).toBe(0);
    expect(viaB.code).toBe(0);
    const idOf = (out: string) => /Deployed (dep_\S+) of todo/.exec(out)?.[1];
    const active = await withCentral(postgres.url, async (central) => {
      const { rows } = await central.query<{ deployment_id: string }>(
        "SELECT deployment_id FROM platform.active_deployments WHERE app_id = 'todo'",
      );
      return rows[0]?.deployment_id;
    });
    expect([idOf(viaA.out), idOf(viaB.out)]).toContain(active);
    const last = active === idOf(viaA.out) ? 'three' : 'four';
    for (const node of [a, b]) await follows(node, last);
    // And they stay there: no node switches back to the other revision.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect([await versionAt(a), await versionAt(b)]).toEqual([last, last]);
    lastVersion = last;
  }, 120_000);

  it('starts a new node with an empty files folder on the active revision', async () => {
    const c = await startNode('c');
    await ready(c);
    expect(await versionAt(c)).toBe(lastVersion);
  }, 60_000);

  it("removes from node B's disk the revisions pruned through node A", async () => {
    const [a, b] = nodes as [Node, Node];
    const folderOf = (name: string) => join(dir.path, name, 'files', DEPLOYMENTS_FOLDER, 'todo');
    const unpackedAt = async (name: string) =>
      (await readdir(folderOf(name))).filter((entry) => !entry.endsWith('.tar.gz'));
    const servedByB = await unpackedAt('b');
    expect(servedByB.length).toBeGreaterThan(1);
    // Node A prunes as each deployment through it does, here down to the active revision...
    const pruned = await withCentral(postgres.url, (central) =>
      pruneRevisions({
        central,
        filesDir: join(dir.path, 'a', 'files'),
        appId: 'todo',
        keep: 1,
        protect: [],
      }),
    );
    expect(pruned.filter((id) => servedByB.includes(id)).length).toBeGreaterThan(0);
    // ...and a new revision through A, which B follows, retiring the one it served.
    await writeFiles(appDir, { 'functions/hello/index.ts': helloSource('five') });
    expect((await deployThrough(a)).code).toBe(0);
    await follows(b, 'five');
    const listed = await withCentral(postgres.url, async (central) =>
      (
        await central.query<{ id: string }>(
          "SELECT id FROM platform.deployments WHERE app_id = 'todo'",
        )
      ).rows.map((row) => row.id),
    );
    // Once the retired revision has drained, B keeps only what the central store lists.
    await expect
      .poll(async () => (await unpackedAt('b')).filter((id) => !listed.includes(id)), {
        timeout: 20_000,
      })
      .toEqual([]);
    expect(
      (await readdir(folderOf('b'))).filter((entry) => pruned.some((id) => entry.startsWith(id))),
    ).toEqual([]);
  }, 90_000);
});
