import { describe, expect, it } from 'vitest';
import { s, toJSONSchema } from '../../src/index.ts';

describe('toJSONSchema', () => {
  it('exports every helper', () => {
    const schema = s.object({
      title: s.string({ minLength: 1, maxLength: 5, pattern: /^a/ }),
      id: s.uuid(),
      n: s.number({ min: 0, max: 9, integer: true }),
      done: s.boolean(),
      kind: s.literal('todo'),
      level: s.enum(['low', 'high']),
      tags: s.array(s.string(), { minItems: 1, maxItems: 3 }),
      note: s.optional(s.nullable(s.string())),
    });
    const json = toJSONSchema(schema) as Record<string, never>;
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['title', 'id', 'n', 'done', 'kind', 'level', 'tags'],
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 5, pattern: '^a' },
        id: { type: 'string', format: 'uuid' },
        n: { type: 'integer', minimum: 0, maximum: 9 },
        done: { type: 'boolean' },
        kind: { const: 'todo' },
        level: { enum: ['low', 'high'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
        note: { type: ['string', 'null'] },
      },
    });
  });
});
