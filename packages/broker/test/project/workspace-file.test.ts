// platform-workspace.yaml: an organisation's name and app folders, read with every fault named,
// and `platform dev --workspace <dir>` serving what it lists with the central store in <dir>.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace } from '../../src/app/start-workspace.ts';
import { main } from '../../src/cli/main.ts';
import { readWorkspaceFile, WORKSPACE_FILE } from '../../src/project/workspace-file.ts';
import { writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const manifest = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
`;

let root: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  root = await tempDir('workspace-file-');
  await writeFiles(root.path, {
    'apps/notes/platform.yaml': manifest,
    'apps/crm/platform.yaml': manifest,
    'apps/empty/README.md': 'no manifest here\n',
  });
});

afterAll(async () => {
  await root?.remove();
});

const withFile = async (name: string, text: string) => {
  const dir = join(root.path, name);
  await writeFiles(dir, { [WORKSPACE_FILE]: text });
  return dir;
};

const problems = async (dir: string) => {
  try {
    await readWorkspaceFile(dir);
  } catch (error) {
    return (error as { problems: string[] }).problems;
  }
  throw new Error('the file was accepted');
};

describe('platform-workspace.yaml', () => {
  it('names the organisation and the app folders, relative to the file', async () => {
    const dir = await withFile(
      'ok',
      'organisation: Acme\napps:\n  - ../apps/notes\n  - ../apps/crm\n',
    );
    expect(await readWorkspaceFile(dir)).toEqual({
      dir,
      organisation: 'Acme',
      appDirs: [join(root.path, 'apps/notes'), join(root.path, 'apps/crm')],
    });
  });

  it('names every fault: keys, names, folders listed twice or without platform.yaml', async () => {
    expect(await problems(join(root.path, 'nowhere'))).toEqual([
      expect.stringContaining('no such file'),
    ]);
    expect(await problems(await withFile('yaml', 'organisation: [unclosed\n'))).toEqual([
      expect.stringContaining('not valid YAML'),
    ]);
    expect(await problems(await withFile('list', '- a\n- b\n'))).toEqual([
      expect.stringContaining('must be a mapping'),
    ]);
    expect(
      await problems(
        await withFile(
          'many',
          'organisation: ""\nregion: eu\napps:\n  - ../apps/notes\n  - ../apps/notes/\n  - ../apps/empty\n  - 7\n',
        ),
      ),
    ).toEqual([
      'unknown key "region" (expected organisation, apps)',
      '"organisation" must be a name of 1 to 100 characters',
      'apps[1] (../apps/notes/) is listed twice',
      'apps[2] (../apps/empty) has no platform.yaml',
      'apps[3] must be a folder path',
    ]);
    expect(await problems(await withFile('none', 'organisation: Acme\napps: []\n'))).toEqual([
      '"apps" must list 1 to 20 app folders',
    ]);
  });

  it('platform dev --workspace refuses a bad file, saying why, and folders beside it', async () => {
    const run = async (...args: string[]) => {
      const err: string[] = [];
      const code = await main(['dev', ...args], {
        stdout: () => {},
        stderr: (line) => err.push(line),
        cwd: root.path,
      });
      return { code, err: err.join('\n') };
    };
    const bad = await run('--workspace', 'many');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain(`${WORKSPACE_FILE}: unknown key "region"`);
    const both = await run('--workspace', 'ok', 'apps/notes');
    expect(both.code).not.toBe(0);
    expect(both.err).toContain('give no folders besides it');
  });

  it('serves the listed apps as the named organisation, its central store in the workspace folder', async () => {
    const file = await readWorkspaceFile(join(root.path, 'ok'));
    const ws = await startWorkspace({
      appDirs: file.appDirs,
      organisation: file.organisation,
      workspaceDir: file.dir,
      port: 0,
      watch: false,
      databaseUrl: '',
      snapshotPath: testSnapshotPath,
      logWriter: () => {},
    });
    try {
      expect(ws.organisation).toBe('Acme');
      expect(ws.apps.map((app) => app.appId)).toEqual(['notes', 'crm']);
      expect((await stat(join(file.dir, '.platform', 'central'))).isDirectory()).toBe(true);
    } finally {
      await ws.close();
    }
  });
});
