// esbuild's service process holds hundreds of megabytes after bundling: it is stopped once the
// builds are done, and a later build starts it again. It also ends with the process that uses it:
// left alone, it goes on with a build after `platform dev` has exited, and may write its bundles.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildThenIdle, ESBUILD_IDLE_MS } from '../../src/functions/esbuild-service.ts';
import { processesInGroup, processesOf } from '../helpers/processes.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const options = {
  stdin: { contents: 'export const answer: number = 42;', loader: 'ts' as const },
  bundle: true,
  write: false,
  format: 'esm' as const,
};
const services = () => processesOf(process.pid, 'esbuild').length;

describe('the esbuild service', () => {
  it('stops when idle, and builds again after', async () => {
    const [first] = (await buildThenIdle(options)).outputFiles ?? [];
    expect(first?.text).toContain('42');
    expect(services()).toBe(1);
    await expect.poll(services, { timeout: ESBUILD_IDLE_MS + 5000 }).toBe(0);
    const [again] = (await buildThenIdle(options)).outputFiles ?? [];
    expect(again?.text).toBe(first?.text);
    // Builds in a row keep one service, stopped only after the last.
    await Promise.all([buildThenIdle(options), buildThenIdle(options)]);
    expect(services()).toBe(1);
    await expect.poll(services, { timeout: ESBUILD_IDLE_MS + 5000 }).toBe(0);
  });

  it('ends with the process that started it, not with the build in progress', async () => {
    const dir = await tempDir();
    try {
      // Seconds of work for esbuild: left alone, it goes on for them after its parent is gone.
      const entry = join(dir.path, 'big.js');
      await writeFile(entry, `export const rows = [${'[1, "a", {b: 2}],'.repeat(1_500_000)}];`);
      const service = fileURLToPath(
        new URL('../../src/functions/esbuild-service.ts', import.meta.url),
      );
      const script = `
        const { buildThenIdle } = await import(${JSON.stringify(service)});
        const outfile = ${JSON.stringify(join(dir.path, 'out.js'))};
        void buildThenIdle({ entryPoints: [${JSON.stringify(entry)}], outfile, minify: true });
        setTimeout(() => process.exit(0), 300);
      `;
      // A group of its own: esbuild stays findable by it once its parent is gone.
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        detached: true,
        stdio: 'inherit',
      });
      const group = child.pid!;
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      // Gone as the process exits (a signal takes a moment), not once its build is done.
      await expect.poll(() => processesInGroup(group), { timeout: 100, interval: 10 }).toEqual([]);
    } finally {
      await dir.remove();
    }
  });
});
