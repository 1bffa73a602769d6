// Validation speed of the `s.*` helpers against the same schema written by hand in plain zod 4,
// measured in the same run. Targets: a valid object within 10% of plain zod; an invalid one at
// least as fast as plain zod building its issues.
import { s } from '@platform/schema';
import { Bench } from 'tinybench';
import { z } from 'zod';
import { type Row, ratioRow, throughput } from '../report.ts';

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

export async function run(): Promise<Row[]> {
  const bench = new Bench({ time: 500, warmup: true });
  let sink = 0;
  bench
    .add('valid: plain zod safeParse', () => {
      sink += plain.safeParse(valid).success ? 1 : 0;
    })
    .add('valid: s.* safeParse', () => {
      sink += ours.safeParse(valid).success ? 1 : 0;
    })
    .add('invalid: plain zod safeParse + issues', () => {
      const result = plain.safeParse(invalid);
      sink += result.success ? 0 : result.error.issues.length;
    })
    .add('invalid: s.* safeParse (PlatformError)', () => {
      const result = ours.safeParse(invalid);
      sink += result.success
        ? 0
        : ((result.error.details?.issues as unknown[] | undefined)?.length ?? 0);
    });
  await bench.run();
  if (sink < 0) console.log(sink);
  const hz = (name: string) => throughput(bench.getTask(name)?.result);
  return [
    ratioRow(
      'schema: valid object',
      hz('valid: s.* safeParse'),
      hz('valid: plain zod safeParse'),
      0.9,
    ),
    ratioRow(
      'schema: invalid object',
      hz('invalid: s.* safeParse (PlatformError)'),
      hz('invalid: plain zod safeParse + issues'),
      1.0,
    ),
  ];
}
