import { readdirSync, readFileSync } from 'node:fs';

/** The text of a /proc file, or `undefined` when the process or thread is gone. */
function procText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * How many `worker_threads` this process runs right now (Linux: Node names their threads
 * `WorkerThread`). The embedded database runs in one, so an open PGlite shows here.
 */
export function workerThreads(): number {
  return readdirSync('/proc/self/task').filter(
    (task) => procText(`/proc/self/task/${task}/comm`)?.trim() === 'WorkerThread',
  ).length;
}

/** A live process as /proc/PID/stat names it. */
interface ProcessStat {
  readonly pid: number;
  readonly name: string;
  readonly ppid: number;
  readonly group: number;
}

/** Every live process (Linux /proc); exited ones not yet reaped (zombies) are left out. */
function* liveProcesses(): Generator<ProcessStat> {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // `pid (comm) state ppid pgrp ...`: the name may hold spaces and parentheses, so split after it.
    const close = stat.lastIndexOf(')');
    const [state, ppid, group] = stat.slice(close + 2).split(' ');
    if (state === 'Z') continue;
    const name = stat.slice(stat.indexOf('(') + 1, close);
    yield { pid: Number(entry), name, ppid: Number(ppid), group: Number(group) };
  }
}

/** Ids of the live child processes of `parent` whose command name is `command` (Linux /proc). */
export function processesOf(parent: number, command: string): number[] {
  return [...liveProcesses()]
    .filter(({ name, ppid }) => name === command && ppid === parent)
    .map(({ pid }) => pid);
}

/**
 * Ids of the live processes (Linux /proc) one of whose command-line arguments contains
 * `fragment`; zombies are left out.
 */
export function processesWithArgument(fragment: string): number[] {
  return [...liveProcesses()]
    .filter(({ pid }) =>
      procText(`/proc/${pid}/cmdline`)
        ?.split('\0')
        .some((arg) => arg.includes(fragment)),
    )
    .map(({ pid }) => pid);
}

/**
 * Every live process under `pid` (Linux /proc) as "pid command line", so that a failure names
 * what was left.
 */
export function descendantsOf(pid: number): string[] {
  const all = [...liveProcesses()];
  const found: string[] = [];
  const queue = [pid];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const child of all.filter(({ ppid }) => ppid === parent)) {
      const command = procText(`/proc/${child.pid}/cmdline`)?.replaceAll('\0', ' ') ?? '';
      found.push(`${child.pid} ${command.slice(0, 200)}`);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * The live processes (Linux /proc) of process group `group`, as "pid name". A child spawned
 * `detached` leads a group its own children join, so they stay findable by it after the child
 * exits and they are handed to init.
 */
export function processesInGroup(group: number): string[] {
  return [...liveProcesses()]
    .filter((process) => process.group === group)
    .map(({ pid, name }) => `${pid} ${name}`);
}
