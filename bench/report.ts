/** One line of the benchmark report: our figure, the same-run baseline, and their ratio. */
export interface Row {
  readonly name: string;
  readonly ours: string;
  readonly baseline: string;
  /** ours ÷ baseline. */
  readonly ratio: number;
  /** The goal the issue names, and whether this run met it. */
  readonly goal?: { readonly text: string; readonly met: boolean };
}

/**
 * The comma-separated numbers of environment variable `name` (`1,10,50`), else of `fallback`;
 * an empty value gives none.
 */
export function numbersFromEnv(name: string, fallback: string): number[] {
  return (process.env[name] ?? fallback)
    .split(',')
    .filter((one) => one !== '')
    .map(Number);
}

/** The middle of `values` (the mean of the two middle ones for an even count), `NaN` for none. */
export function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A throughput as `1,234 ops/s`. */
export const ops = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ops/s`;

/** A row comparing two throughputs; `atLeast` is the ratio we aim for, if any. */
export function ratioRow(name: string, ours: number, baseline: number, atLeast?: number): Row {
  const ratio = ours / baseline;
  return {
    name,
    ours: ops(ours),
    baseline: ops(baseline),
    ratio,
    ...(atLeast === undefined
      ? {}
      : { goal: { text: `ratio >= ${atLeast}`, met: ratio >= atLeast } }),
  };
}

/** A row with ready-made figures and an optional goal. */
export function row(
  name: string,
  ours: string,
  baseline: string,
  ratio: number,
  goal?: { text: string; met: boolean },
): Row {
  return { name, ours, baseline, ratio, ...(goal ? { goal } : {}) };
}

/** Mean operations per second of a finished tinybench task, `NaN` when it did not complete. */
export function throughput(result: object | undefined): number {
  return result && 'throughput' in result
    ? (result as { throughput: { mean: number } }).throughput.mean
    : Number.NaN;
}

/** Prints rows as a table with a verdict per goal. */
export function print(rows: readonly Row[]): void {
  console.table(
    rows.map((r) => ({
      benchmark: r.name,
      ours: r.ours,
      baseline: r.baseline,
      ratio: r.ratio.toFixed(3),
      goal: r.goal?.text ?? '',
      verdict: r.goal === undefined ? '' : r.goal.met ? 'met' : 'MISSED',
    })),
  );
}
