import { limits } from '@platform/schema';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How many backups the retention keeps (docs/backups.md). */
export interface Retention {
  /** Days, counted back from now, whose newest backup is kept. */
  readonly daily: number;
  /** Weeks (7 days each, counted back from now) whose newest backup is kept. */
  readonly weekly: number;
}

/** The default retention: `limits.backups`. */
export const defaultRetention: Retention = {
  daily: limits.backups.daily,
  weekly: limits.backups.weekly,
};

/**
 * The ids of `backups` the retention keeps at `now`: every backup of the last 24 hours (a
 * backup taken before a deployment stays for a day even when a scheduled one follows), the
 * newest of each of the last `daily` days and of each of the last `weekly` weeks, and the newest
 * of all so that an app always has one. Once the owner's account is deleted (`eraseBy` set), the
 * newest is no longer kept for its own sake and nothing is kept from `eraseBy` on.
 */
export function retained(
  backups: readonly { readonly id: string; readonly createdAt: string }[],
  now: Date,
  retention: Retention = defaultRetention,
  eraseBy?: Date,
): Set<string> {
  const keep = new Set<string>();
  if (eraseBy !== undefined && now.getTime() >= eraseBy.getTime()) return keep;
  const sorted = [...backups].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const newestIn = new Map<string, string>();
  for (const backup of sorted) {
    const age = now.getTime() - Date.parse(backup.createdAt);
    if (age < DAY_MS) keep.add(backup.id);
    const day = Math.floor(age / DAY_MS);
    const week = Math.floor(age / (7 * DAY_MS));
    if (day < retention.daily && !newestIn.has(`d${day}`)) newestIn.set(`d${day}`, backup.id);
    if (week < retention.weekly && !newestIn.has(`w${week}`)) newestIn.set(`w${week}`, backup.id);
  }
  for (const id of newestIn.values()) keep.add(id);
  if (eraseBy === undefined && sorted[0] !== undefined) keep.add(sorted[0].id);
  return keep;
}
