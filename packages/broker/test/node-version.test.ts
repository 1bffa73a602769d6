// The `platform` CLI under a Node older than its `engines` says which Node it needs and exits 1,
// instead of failing inside a dependency with a stack trace.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { minimumNode, nodeTooOld } from '../src/cli/node-version.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'packages/broker/src/bin.ts');
const { engines, version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { engines: { node: string }; version: string };

/** Runs the CLI's source bin with the Node at `node`; resolves to its exit code and output. */
async function runWith(node: string, args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      node,
      ['--conditions=@platform/source', '--import', 'tsx', bin, ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the Node version check of the platform CLI', () => {
  it('reads a >= range from engines, which the broker declares in that form', () => {
    expect(minimumNode(engines.node)).toMatch(/^\d+\.\d+\.\d+$/);
    // undici, which the broker depends on, needs at least this.
    const undici = JSON.parse(
      readFileSync(join(root, 'node_modules/undici/package.json'), 'utf8'),
    ) as { engines: { node: string } };
    expect(nodeTooOld(minimumNode(undici.engines.node)!, engines.node, 'node')).toBeUndefined();
    expect(minimumNode('^22 || ^24')).toBeUndefined();
  });

  it('compares major, minor and patch', () => {
    expect(nodeTooOld('22.19.0', '>=22.19.0', 'node')).toBeUndefined();
    expect(nodeTooOld('24.1.0', '>=22.19.0', 'node')).toBeUndefined();
    expect(nodeTooOld('22.20.0', '>=22.19', 'node')).toBeUndefined();
    expect(nodeTooOld('22.18.9', '>=22.19.0', 'node')).toContain('needs Node.js >=22.19.0');
    expect(nodeTooOld('20.20.2', '>=22', '/usr/bin/node')).toContain(
      'this is Node.js 20.20.2 (/usr/bin/node)',
    );
  });

  it('the bin under this Node runs the CLI', async () => {
    expect(await runWith(process.execPath, ['--version'])).toMatchObject({
      code: 0,
      stdout: `${version}\n`,
    });
  });

  // The machine's own node (the README's "fresh machine with Node 20"): when it is older than
  // engines allows, the message and exit 1; when it is new enough, the CLI runs.
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => existsSync(path));
  it(`the bin under the system Node (${systemNode ?? 'none'}) explains or runs`, async () => {
    expect(systemNode).toBeDefined();
    const result = await runWith(systemNode!, ['--version']);
    const { stdout: nodeVersion } = await promisify(execFile)(systemNode!, [
      '-p',
      'process.versions.node',
    ]);
    if (nodeTooOld(nodeVersion.trim(), engines.node, systemNode!) !== undefined) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`${nodeTooOld(nodeVersion.trim(), engines.node, systemNode!)}\n`);
      expect(result.stderr).toContain(`platform needs Node.js ${engines.node}`);
      expect(result.stderr).toContain('https://nodejs.org');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } else {
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
    }
  });
});
