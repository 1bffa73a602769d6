// Validation speed of the `s.*` helpers against the same schema written by hand in plain zod 4,
// measured in the same run. Targets: a valid object within 10% of plain zod; an invalid one at
// least as fast as plain zod building its issues.
import { s } from '@platform/schema';
import { Bench } from 'tinybench';
import { z } from 'zod';
import { median, ops, type Row, row, throughput } from '../report.ts';

const ours = s.object({
  id: s.uuid(),
  title: s.string({ minLength: 1, maxLength: 200 }),
  tags: s.array(s.string(), { maxItems: 20 }),
  priority: s.enum(['low', 'normal', 'high']),
  note: s.optional(s.nullable(s.string())),
  estimate: s.number({ min: 0 }),
});

const plain = z.strictObject({
  id: z.uuid(),
  title: z.string().min(1).max(200),
  tags: z.array(z.string()).max(20),
  priority: z.enum(['low', 'normal', 'high']),
  note: z.string().nullable().optional(),
  estimate: z.number().gte(0),
});

const valid = {
  id: '0b6e3f0e-8c5a-4d3c-9a43-0f3b1f9a2c11',
  title: 'Write the quarterly report',
  tags: ['work', 'writing', 'q3'],
  priority: 'high',
  note: null,
  estimate: 3.5,
};
const invalid = { ...valid, id: 'nope', title: '', tags: ['ok', 7], extra: true };

// Tasks measured later in one process run slower (zod's shared code sees more shapes, the heap
// grows), which favoured whichever side ran first. So the suite runs in rounds, reversing the
// order every round, and reports each side's median.
const ROUNDS = 8;

export async function run(): Promise<Row[]> {
  let sink = 0;
  const tasks: Record<string, () => void> = {
    'valid: plain zod safeParse': () => {
      sink += plain.safeParse(valid).success ? 1 : 0;
    },
    'valid: s.* safeParse': () => {
      sink += ours.safeParse(valid).success ? 1 : 0;
    },
    'invalid: plain zod safeParse + issues': () => {
      const result = plain.safeParse(invalid);
      sink += result.success ? 0 : result.error.issues.length;
    },
    'invalid: s.* safeParse (PlatformError)': () => {
      const result = ours.safeParse(invalid);
      sink += result.success
        ? 0
        : ((result.error.details?.issues as unknown[] | undefined)?.length ?? 0);
    },
  };
  const names = Object.keys(tasks);
  const figures = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: 150, warmup: round === 0 });
    for (const name of round % 2 === 0 ? names : names.toReversed()) {
      bench.add(name, tasks[name] as () => void);
    }
    await bench.run();
    for (const name of names) figures.get(name)?.push(throughput(bench.getTask(name)?.result));
  }
  if (sink < 0) console.log(sink);
  const pair = (name: string, ourTask: string, baseTask: string, atLeast: number): Row => {
    const ours = figures.get(ourTask) ?? [];
    const base = figures.get(baseTask) ?? [];
    // The ratio is the median of each round's own ratio: the two sides of a round ran next to
    // each other, under the same load.
    const ratio = median(ours.map((value, round) => value / (base[round] as number)));
    return row(name, ops(median(ours)), ops(median(base)), ratio, {
      text: `ratio >= ${atLeast}`,
      met: ratio >= atLeast,
    });
  };
  return [
    pair('schema: valid object', 'valid: s.* safeParse', 'valid: plain zod safeParse', 0.9),
    pair(
      'schema: invalid object',
      'invalid: s.* safeParse (PlatformError)',
      'invalid: plain zod safeParse + issues',
      1.0,
    ),
  ];
}
