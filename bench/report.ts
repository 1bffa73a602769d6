/** One line of the benchmark report: our figure, the same-run baseline, and their ratio. */
export interface Row {
  readonly name: string;
  readonly ours: string;
  readonly baseline: string;
  /** ours ÷ baseline, oriented so that higher is better for us. */
  readonly ratio: number;
  /** The ratio we aim for (at least this), when the issue names one. */
  readonly target?: number;
}

const fmt = (ops: number) => `${Math.round(ops).toLocaleString('en-US')} ops/s`;

/** A row comparing two throughputs (operations per second). */
export function ratioRow(name: string, ours: number, baseline: number, target?: number): Row {
  return {
    name,
    ours: fmt(ours),
    baseline: fmt(baseline),
    ratio: ours / baseline,
    ...(target ? { target } : {}),
  };
}

/** Prints rows as a table with a verdict per target. */
export function print(rows: readonly Row[]): void {
  const table = rows.map((row) => ({
    benchmark: row.name,
    ours: row.ours,
    baseline: row.baseline,
    ratio: row.ratio.toFixed(3),
    target: row.target === undefined ? '' : `>= ${row.target}`,
    verdict: row.target === undefined ? '' : row.ratio >= row.target ? 'met' : 'MISSED',
  }));
  console.table(table);
}

/** Mean operations per second of a finished tinybench task, `NaN` when it did not complete. */
export function throughput(result: object | undefined): number {
  return result && 'throughput' in result
    ? (result as { throughput: { mean: number } }).throughput.mean
    : Number.NaN;
}
