import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Broker, type BrokerOptions, startBroker } from '../../src/app/start-broker.ts';
import { anonymousCaller, userCaller } from '../../src/kernel/caller.ts';
import { testSnapshotPath, testsOnCluster } from './db.ts';
import { startPrivateCluster } from './postgres-server.ts';
import { tempDir } from './temp-dir.ts';

/** Writes `files` (path → text) into `dir`. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** Test identity: `x-test-user: <uuid>` is that user, no header is anonymous. */
export const headerAuthenticate: NonNullable<BrokerOptions['authenticate']> = async (request) => {
  const id = request.headers.get('x-test-user');
  return id ? userCaller(id) : anonymousCaller;
};

/** A broker on a temp app folder holding `files`; `lines` collects what it prints. */
export async function brokerFor(
  files: Record<string, string>,
  options: Partial<BrokerOptions> = {},
): Promise<{
  broker: Broker;
  appDir: string;
  /** The app database's URL on its private cluster; `''` on PGlite. */
  databaseUrl: string;
  lines: string[];
  cleanup: () => Promise<void>;
}> {
  const dir = await tempDir('broker-app-');
  await writeFiles(dir.path, files);
  const lines: string[] = [];
  // PLATFORM_DEV_DATABASE=cluster: the app's database on a private cluster of its own.
  const cluster =
    testsOnCluster && options.databaseUrl === undefined ? await startPrivateCluster() : undefined;
  let broker: Broker;
  let databaseUrl = '';
  try {
    if (cluster) databaseUrl = await cluster.createDatabase('platform_app_test');
    broker = await startBroker({
      appDir: dir.path,
      sdkVersion: '2.6.0',
      databaseUrl,
      snapshotPath: testSnapshotPath,
      logWriter: (line) => lines.push(line),
      authenticate: headerAuthenticate,
      ...options,
    });
  } catch (error) {
    await cluster?.stop();
    throw error;
  }
  return {
    broker,
    appDir: dir.path,
    databaseUrl,
    lines,
    cleanup: async () => {
      await broker.close().catch(() => undefined);
      await cluster?.stop();
      await dir.remove();
    },
  };
}

/**
 * Calls Function `name` of a started broker over real HTTP on loopback, as a browser does
 * (`POST /_platform/api/functions/:name` with the JSON input), with extra request headers.
 */
export function callOverHttp(
  broker: Broker,
  name: string,
  input: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${broker.server.url}/_platform/api/functions/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(input),
  });
}
