/** How many minutes a console chart covers: the last hour, one bar a minute. */
export const CHART_MINUTES = 60;

/**
 * Counts of the last hour, minute by minute, in named series: what the console's charts draw
 * (`bar-chart-client.ts` stacks the series in the order given).
 */
export interface PerMinute<Series extends string = string> {
  /** The end of the hour: the newest minute ends at this instant. */
  readonly until: string;
  /** Each series' counts in each of the last {@link CHART_MINUTES} minutes, oldest first. */
  readonly perMinute: Readonly<Record<Series, readonly number[]>>;
}

/** A count of one series in one minute, that minute given as whole minutes before the end. */
export interface MinuteCount {
  readonly ago: number;
  readonly series: string;
  readonly count: number;
}

/**
 * The series of `counts` spread over the hour before `until`: every series of `series` gets
 * {@link CHART_MINUTES} slots (zero where nothing counted), and a count outside the hour or of
 * another series is left out.
 */
export function perMinute<Series extends string>(
  until: Date,
  series: readonly Series[],
  counts: Iterable<MinuteCount>,
): PerMinute<Series> {
  const out = Object.fromEntries(
    series.map((name) => [name, new Array<number>(CHART_MINUTES).fill(0)]),
  ) as Record<Series, number[]>;
  for (const { ago, series: name, count } of counts) {
    const slots = out[name as Series];
    if (slots === undefined || ago < 0 || ago >= CHART_MINUTES) continue;
    const slot = CHART_MINUTES - 1 - ago;
    slots[slot] = (slots[slot] ?? 0) + count;
  }
  return { until: until.toISOString(), perMinute: out };
}

/** Whole minutes from instant `at` (ISO 8601) back from `until`; the minute `at` falls in. */
export const minutesBefore = (until: Date, at: string): number =>
  Math.floor((until.getTime() - Date.parse(at)) / 60_000);

/**
 * SQL for the same minute as {@link minutesBefore}: whole minutes between timestamp `column`
 * and the instant in parameter `$param`.
 */
export const minutesBeforeSql = (column: string, param: number): string =>
  `floor(extract(epoch from ($${param}::timestamptz - ${column})) / 60)::int`;

/** SQL condition: timestamp `column` lies in the hour up to the instant in parameter `$param`. */
export const inLastHourSql = (column: string, param: number): string =>
  `${column} > $${param}::timestamptz - interval '1 hour' AND ${column} <= $${param}::timestamptz`;
