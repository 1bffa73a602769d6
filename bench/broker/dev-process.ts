// Servers of the broker benches in processes of their own, `platform dev` above all, and the
// memory of a process's Deno children.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root, where every server of the benches runs. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

// The sources as `npm run example` runs them: Node strips the types itself; a Node that cannot
// (before 22.18) loads them through tsx, the benches' own runner.
const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);

/** Node's arguments for running the repository's TypeScript sources. */
export const fromSource = [
  '--conditions=@platform/source',
  ...(stripsTypes ? [] : ['--import', 'tsx']),
];

/** A server in its own process, known by its port. */
export interface Server {
  readonly port: number;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the line that gave the port. */
  readonly readyMs: number;
}

/** Spawns a server and waits for the first stdout line `pattern` matches (group 1: the port). */
export async function spawnServer(
  command: string,
  args: string[],
  pattern: RegExp,
): Promise<Server> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = pattern.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  return { port, child, readyMs: performance.now() - started };
}

/** Stops a server with SIGTERM and waits for its exit. */
export async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** `platform dev <appDir>` on a free port, without watching, with further `args`. */
export function platformDev(appDir: string, args: readonly string[] = []): Promise<Server> {
  return spawnServer(
    process.execPath,
    [
      ...fromSource,
      'packages/broker/src/bin.ts',
      'dev',
      appDir,
      '--port',
      '0',
      '--no-watch',
      ...args,
    ],
    /^http:\/\/localhost:(\d+)$/,
  );
}

function procText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Resident and proportional memory, in megabytes. */
export interface Memory {
  /** How many processes were counted. */
  readonly processes: number;
  /** Resident set size, summed: pages shared between the processes count once per process. */
  readonly rssMb: number;
  /** Proportional set size, summed: each shared page is split between its processes. */
  readonly pssMb: number;
}

/** The memory of the live Deno children of process `parent` (Linux /proc). */
export function denoChildrenMemory(parent: number): Memory {
  let processes = 0;
  let rssKb = 0;
  let pssKb = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, ppid] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(0, 2);
    if (name !== 'deno' || Number(ppid) !== parent || state === 'Z') continue;
    const rollup = procText(`/proc/${entry}/smaps_rollup`) ?? '';
    const field = (key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    processes += 1;
    rssKb += field('Rss');
    pssKb += field('Pss');
  }
  return { processes, rssMb: rssKb / 1024, pssMb: pssKb / 1024 };
}
