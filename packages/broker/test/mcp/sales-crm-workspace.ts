import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const example = new URL('../../../../examples/sales-crm', import.meta.url).pathname;

/** The repository's root, where `platform mcp` runs from its sources. */
export const root = new URL('../../../../', import.meta.url).pathname;

/**
 * A copy of `examples/sales-crm` served as one workspace (its crm and sales apps) in a temporary
 * folder whose name starts with `prefix`, after `prepare` changed the copy (given its folder);
 * `close` stops it and removes the folder.
 */
export async function salesCrmWorkspace(
  prefix: string,
  prepare: (dir: string) => Promise<void> = async () => {},
): Promise<{ ws: WorkspaceServer; dir: string; close: () => Promise<void> }> {
  const dir = await tempDir(prefix);
  await cp(example, dir.path, { recursive: true });
  await prepare(dir.path);
  const ws = await startWorkspace({
    appDirs: [join(dir.path, 'crm'), join(dir.path, 'sales')],
    workspaceDir: dir.path,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    logWriter: () => {},
  });
  return {
    ws,
    dir: dir.path,
    close: async () => {
      await ws.close();
      await dir.remove();
    },
  };
}

/** `platform mcp` over stdio, from the sources, for the app in `appDir`. */
export function platformMcpStdio(appDir: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      '--conditions=@platform/source',
      '--import',
      'tsx',
      join(root, 'packages/broker/src/bin.ts'),
      'mcp',
      '--app',
      appDir,
    ],
    cwd: root,
    stderr: 'pipe',
  });
}
