import { describe, expectTypeOf, it } from 'vitest';
import { type Infer, s } from '../../src/index.ts';

describe('Infer', () => {
  it('gives the static type, with optional keys optional', () => {
    const schema = s.object({
      id: s.uuid(),
      title: s.string(),
      level: s.enum(['low', 'high']),
      kind: s.literal('todo'),
      tags: s.array(s.number()),
      note: s.optional(s.nullable(s.string())),
      nested: s.object({ done: s.boolean() }),
    });
    expectTypeOf<Infer<typeof schema>>().toEqualTypeOf<{
      id: string;
      title: string;
      level: 'low' | 'high';
      kind: 'todo';
      tags: number[];
      nested: { done: boolean };
      note?: string | null | undefined;
    }>();
    expectTypeOf(schema.parse).returns.toEqualTypeOf<Infer<typeof schema>>();
  });
});
