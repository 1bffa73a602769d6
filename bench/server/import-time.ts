import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../report.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function run(command: string, args: string[]): number {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  const match = /IMPORT_MS (\d+(?:\.\d+)?)/.exec(result.stdout);
  if (!match) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  return Number(match[1]);
}

const script = (specifier: string) =>
  `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log('IMPORT_MS ' + (performance.now() - t).toFixed(1));`;

/**
 * Median of `runs` cold imports of `@platform/server`, each in a fresh process: Node with the
 * same flags as this runner (the built dist by default; sources when run with
 * `--conditions=@platform/source --import tsx`), Deno with the sources (the same condition,
 * through the packages' `exports` maps).
 */
export function importTimes(runs = 5) {
  const node: number[] = [];
  const deno: number[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(
      run(process.execPath, [
        ...process.execArgv,
        '--input-type=module',
        '-e',
        script('@platform/server'),
      ]),
    );
    deno.push(
      run('node_modules/.bin/deno', [
        'eval',
        '--conditions=@platform/source',
        script('@platform/server'),
      ]),
    );
  }
  return {
    nodeMs: median(node),
    denoMs: median(deno),
    nodeFrom: process.execArgv.join(' ') || 'dist',
  };
}
