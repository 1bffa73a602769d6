/** Edit distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `value` when it is a plausible typo (same letters in another case, or
 * at most a third of the characters edited), else `undefined`.
 */
export function closest(value: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const lower = value.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === value) continue;
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(value, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(value.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** `' Did you mean "x"?'` when a close candidate exists, else `''`. */
export function didYouMean(value: string, candidates: Iterable<string>): string {
  const match = closest(value, candidates);
  return match === undefined ? '' : ` Did you mean "${match}"?`;
}
