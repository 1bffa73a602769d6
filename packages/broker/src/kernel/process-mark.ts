import { hostname, uptime } from 'node:os';

/**
 * A process as a lock or a lease records its holder: the machine, the process id and when the
 * machine booted. Enough to tell, on the same machine, that the holder is gone (killed, even by
 * SIGKILL, or from before a reboot that may have reused its pid), with no timeout to wait out.
 */
export interface ProcessMark {
  /** The machine's host name: another machine's process is never judged from here. */
  readonly host: string;
  readonly pid: number;
  /** When the machine booted, as the holder saw it (ms since the epoch). */
  readonly bootedAt: number;
}

// The boot moment drifts by clock adjustments; a reboot moves it by at least the previous uptime.
const BOOT_SLACK_MS = 30_000;

/** When this machine booted (ms since the epoch), give or take clock adjustments. */
export const machineBootedAt = (): number => Math.round(Date.now() - uptime() * 1000);

/** Whether `bootedAt` is this machine's current boot (within the drift of its clock). */
export const sameBoot = (bootedAt: number): boolean =>
  Math.abs(bootedAt - machineBootedAt()) <= BOOT_SLACK_MS;

/** Whether process `pid` runs on this machine (`EPERM`: it does, as another user). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process's mark. */
export const thisProcess = (): ProcessMark => ({
  host: hostname(),
  pid: process.pid,
  bootedAt: machineBootedAt(),
});

/**
 * Whether the holder `mark` names is known to be gone: it ran on this machine, and the machine
 * booted since or its pid runs no more. A holder on another machine, or this very process, is
 * never known gone.
 *
 * @example
 * ```ts
 * if (isGone(lease.holder)) takeOver(lease);
 * ```
 */
export function isGone(mark: ProcessMark): boolean {
  if (mark.host !== hostname()) return false;
  if (!sameBoot(mark.bootedAt)) return true;
  if (mark.pid === process.pid) return false;
  return !isProcessRunning(mark.pid);
}
