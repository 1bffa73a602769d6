/**
 * Runs `work` while its lease is renewed by `renew` every third of `leaseMs`, so that a process
 * that dies lets another take the work over one lease later, however long the work runs. A
 * renewal that fails is tried again at the next one. Settles with `work`'s outcome once a
 * renewal under way has settled too, so that what follows (recording the outcome against the
 * lease, releasing it) sees the lease where it ends.
 *
 * @example
 * ```ts
 * const result = await whileRenewing(60_000, () => extendLease(id), () => runSync(id));
 * ```
 */
export async function whileRenewing<T>(
  leaseMs: number,
  renew: () => Promise<unknown>,
  work: () => Promise<T>,
): Promise<T> {
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renew().catch(() => undefined);
  }, leaseMs / 3);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await renewing;
  }
}
