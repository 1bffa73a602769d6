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

/**
 * Ids of the live child processes of `parent` whose command name is `command` (Linux /proc);
 * exited children not yet reaped (zombies) are left out.
 */
export function processesOf(parent: number, command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // `pid (comm) state ppid ...`: the name may hold spaces and parentheses, so split after it.
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const name = stat.slice(open + 1, close);
    const [state, ppid] = stat
      .slice(close + 2)
      .split(' ')
      .slice(0, 2);
    if (name === command && Number(ppid) === parent && state !== 'Z') pids.push(Number(entry));
  }
  return pids;
}

/**
 * Ids of the live processes (Linux /proc) one of whose command-line arguments contains
 * `fragment`; zombies are left out.
 */
export function processesWithArgument(fragment: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = procText(`/proc/${entry}/cmdline`);
    if (args === undefined || !args.split('\0').some((arg) => arg.includes(fragment))) continue;
    const stat = procText(`/proc/${entry}/stat`);
    if (stat === undefined || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
    pids.push(Number(entry));
  }
  return pids;
}

/**
 * The live processes (Linux /proc) of process group `group`, as "pid name", zombies left out.
 * A child spawned `detached` leads a group its own children join, so they stay findable by
 * it after the child exits and they are handed to init.
 */
export function processesInGroup(group: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    const close = stat.lastIndexOf(')');
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (state !== 'Z' && Number(pgrp) === group) {
      found.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, close)}`);
    }
  }
  return found;
}
