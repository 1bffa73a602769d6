// Server benchmarks. As a suite of bench/run.ts: `server: () => import('./server/run.ts')`.
// Alone: `npx node --import tsx bench/server/run.ts` (after `npm run build`), or against the
// sources: `npx node --conditions=@platform/source --import tsx bench/server/run.ts`.
import { type Row, row } from '../report.ts';
import { benchHost } from './host.bench.ts';
import { importTimes } from './import-time.ts';

/** Runs the server benchmarks, prints the overhead and import times, returns report rows. */
export async function run(): Promise<Row[]> {
  const { base, host, overheadMicroseconds } = await benchHost();
  console.log(
    `@platform/server host overhead: ${overheadMicroseconds.toFixed(1)} µs per invocation (target < 20 µs)`,
  );
  const { nodeMs, denoMs, nodeFrom } = importTimes();
  console.log(
    `import @platform/server: Node ${nodeMs} ms (${nodeFrom}), Deno ${denoMs} ms (sources)`,
  );
  return [
    row(
      'server: function host vs direct handler call',
      `${Math.round(host.opsPerSecond).toLocaleString('en-US')} ops/s`,
      `${Math.round(base.opsPerSecond).toLocaleString('en-US')} ops/s`,
      host.opsPerSecond / base.opsPerSecond,
      {
        text: `overhead ${overheadMicroseconds.toFixed(1)} µs < 20 µs`,
        met: overheadMicroseconds < 20,
      },
    ),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
