// The first call of a Function after `platform dev` is ready, against the call after it, with
// the Functions' processes started ahead once ready (the default) and started on their first
// call (`--start-functions call`, the baseline), alternated in one run (FIRST_CALL_ROUNDS,
// default 3; each figure the median). Each is timed twice: right at the URL line, and
// FIRST_CALL_PAUSE_MS (default 2000) later, as a browser's first call usually comes after the
// page has loaded. Also the memory of the Deno processes at rest at that moment, before any call.
//
// As a suite of bench/run.ts: `broker-first-call`; `broker` runs it too.
// Alone: `npx tsx --conditions=@platform/source bench/broker/first-call.ts`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { median, type Row, row } from '../report.ts';
import { denoChildrenMemory, type Memory, platformDev, stop } from './dev-process.ts';
import { ECHO_PATH, echoApp, echoBody } from './echo-app.ts';
import { postJson } from './post-json.ts';

const ROUNDS = Number(process.env.FIRST_CALL_ROUNDS ?? 3);
const PAUSE_MS = Number(process.env.FIRST_CALL_PAUSE_MS ?? 2000);
/** What the first call may cost more than the next one. */
const GOAL_MS = 50;

type Mode = 'ready' | 'call';
const MODES: readonly Mode[] = ['ready', 'call'];
const label: Record<Mode, string> = {
  ready: 'started ahead',
  call: 'started on first call',
};

interface Sample {
  readonly first: number;
  readonly next: number;
  /** The Deno processes' memory before the first call (after the pause only). */
  readonly memory?: Memory;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const mb = (memory: Memory) =>
  `${memory.rssMb.toFixed(1)} MB RSS, ${memory.pssMb.toFixed(1)} MB PSS (${memory.processes} proc.)`;

async function timedCall(port: number): Promise<number> {
  const started = performance.now();
  await postJson(port, ECHO_PATH, echoBody);
  return performance.now() - started;
}

/** One `platform dev` start of `dir` in `mode`: its first and next call, `pauseMs` after ready. */
async function sample(dir: string, mode: Mode, pauseMs: number): Promise<Sample> {
  const dev = await platformDev(dir, ['--start-functions', mode]);
  try {
    let memory: Memory | undefined;
    if (pauseMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      memory = denoChildrenMemory(dev.child.pid ?? 0);
    }
    const first = await timedCall(dev.port);
    const next = await timedCall(dev.port);
    return { first, next, ...(memory ? { memory } : {}) };
  } finally {
    await stop(dev);
  }
}

/**
 * The rows of this bench for the app in `dir`, started before at least once (its database and
 * bundles exist: a warm app folder, the usual case of `platform dev`).
 */
export async function firstCallRows(dir: string): Promise<Row[]> {
  const samples = new Map<string, Sample[]>();
  const key = (mode: Mode, pauseMs: number) => `${mode}/${pauseMs}`;
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated, so that background load hits every case alike.
    for (const pauseMs of [0, PAUSE_MS]) {
      for (const mode of MODES) {
        const one = await sample(dir, mode, pauseMs);
        samples.set(key(mode, pauseMs), [...(samples.get(key(mode, pauseMs)) ?? []), one]);
      }
    }
  }
  const rows: Row[] = [];
  for (const pauseMs of [0, PAUSE_MS]) {
    const when = pauseMs === 0 ? 'at the URL line' : `${pauseMs} ms after the URL line`;
    for (const mode of MODES) {
      const all = samples.get(key(mode, pauseMs)) ?? [];
      const first = median(all.map((one) => one.first));
      const next = median(all.map((one) => one.next));
      const extra = median(all.map((one) => one.first - one.next));
      rows.push(
        row(
          `broker: first call ${when}, ${label[mode]} (vs the next call)`,
          ms(first),
          ms(next),
          first / next,
          {
            text: `at most ${GOAL_MS} ms more than the next call (median extra ${extra.toFixed(1)} ms)`,
            met: extra <= GOAL_MS,
          },
        ),
      );
    }
  }
  const atRest = (mode: Mode): Memory => {
    const all = (samples.get(key(mode, PAUSE_MS)) ?? []).flatMap((one) => one.memory ?? []);
    return {
      processes: median(all.map((one) => one.processes)),
      rssMb: median(all.map((one) => one.rssMb)),
      pssMb: median(all.map((one) => one.pssMb)),
    };
  };
  const ahead = atRest('ready');
  const onCall = atRest('call');
  rows.push(
    row(
      `broker: Deno processes at rest ${PAUSE_MS} ms after the URL line, started ahead (vs on first call)`,
      mb(ahead),
      mb(onCall),
      onCall.rssMb > 0 ? ahead.rssMb / onCall.rssMb : Number.NaN,
    ),
  );
  return rows;
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-first-call-'));
  try {
    for (const [path, text] of Object.entries(echoApp)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    // A first start creates the database and the bundle.
    await stop(await platformDev(dir));
    return await firstCallRows(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
