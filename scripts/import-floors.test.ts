// The broker's import fence (.dependency-cruiser.cjs, FLOORS.md) run on a small tree of its own:
// a folder no floor names is a feature at once, fenced in both ways.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const run = promisify(execFile);
let tree = '';

/** Writes `files` under a new tree's `packages/broker/src` and runs the check there. */
async function check(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
  tree = await mkdtemp(join(tmpdir(), 'floors-'));
  await copyFile(join(root, 'tsconfig.base.json'), join(tree, 'tsconfig.base.json'));
  for (const [path, text] of Object.entries(files)) {
    const file = join(tree, 'packages/broker/src', path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  const args = ['packages/broker/src', '--config', join(root, '.dependency-cruiser.cjs')];
  try {
    const { stdout } = await run(join(root, 'node_modules/.bin/depcruise'), args, { cwd: tree });
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

afterEach(() => rm(tree, { recursive: true, force: true }));

const mcp = { 'mcp/agent-tools.ts': 'export const tools = 1;\n' };

describe('the broker import floors', () => {
  it('let a new folder import what a feature may', async () => {
    const result = await check({
      ...mcp,
      'kernel/ids.ts': 'export const id = 1;\n',
      'realtime/channels.ts': "import { id } from '../kernel/ids.ts';\nexport const c = id;\n",
    });
    expect(result).toMatchObject({ ok: true });
  });

  it('fail a new folder that no floor names when it imports mcp/', async () => {
    const result = await check({
      ...mcp,
      'realtime/channels.ts':
        "import { tools } from '../mcp/agent-tools.ts';\nexport const c = tools;\n",
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain('broker-floor-features');
  });

  it('fail a floor below the features that imports a new folder', async () => {
    const result = await check({
      'realtime/channels.ts': 'export const c = 1;\n',
      'db/database.ts': "import { c } from '../realtime/channels.ts';\nexport const d = c;\n",
    });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/broker-floor-[a-z-]*: .*db\/database\.ts/);
  });
});
