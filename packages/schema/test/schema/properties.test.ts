import { isPlatformError } from '@platform/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Schema, s } from '../../src/index.ts';

// A random schema paired with an arbitrary of values it must accept.
type Case = { schema: Schema; valid: fc.Arbitrary<unknown> };

const leaf: fc.Arbitrary<Case> = fc.oneof(
  fc.constant({ schema: s.string(), valid: fc.string() }),
  fc.integer({ min: 0, max: 5 }).map((min) => ({
    schema: s.string({ minLength: min, maxLength: min + 5 }),
    valid: fc.string({ minLength: min, maxLength: min + 5, unit: 'grapheme-ascii' }),
  })),
  fc.constant({ schema: s.uuid(), valid: fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8] }) }),
  fc.constant({ schema: s.number(), valid: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  fc.constant({
    schema: s.number({ integer: true, min: -10, max: 10 }),
    valid: fc.integer({ min: -10, max: 10 }),
  }),
  fc.constant({ schema: s.boolean(), valid: fc.boolean() }),
  fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)).map((value) => ({
    schema: s.literal(value),
    valid: fc.constant(value),
  })),
  fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }).map((values) => ({
    schema: s.enum(values as [string, ...string[]]),
    valid: fc.constantFrom(...values),
  })),
);

const schemaCase: fc.Arbitrary<Case> = fc.letrec<{ node: Case }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('node').map((inner) => ({
      schema: s.array(inner.schema),
      valid: fc.array(inner.valid, { maxLength: 3 }),
    })),
    tie('node').map((inner) => ({
      schema: s.nullable(inner.schema),
      valid: fc.option(inner.valid, { nil: null }),
    })),
    fc
      .dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('node'), { maxKeys: 4 })
      .chain((fields) => {
        const entries = Object.entries(fields);
        return fc
          .array(fc.boolean(), { minLength: entries.length, maxLength: entries.length })
          .map((optional) => {
            const shape: Record<string, Schema> = {};
            const valid: Record<string, fc.Arbitrary<unknown>> = {};
            entries.forEach(([key, field], i) => {
              shape[key] = optional[i] ? s.optional(field.schema) : field.schema;
              valid[key] = field.valid;
            });
            const requiredKeys = entries.filter((_, i) => !optional[i]).map(([key]) => key);
            return {
              schema: s.object(shape),
              valid: fc.record(valid, { requiredKeys }),
            };
          });
      }),
  ),
})).node;

describe('parsing, property-based', () => {
  it('never throws anything but INVALID_INPUT, whatever JSON arrives', () => {
    fc.assert(
      fc.property(schemaCase, fc.jsonValue(), ({ schema }, value) => {
        const result = schema.safeParse(value);
        if (!result.success) {
          expect(isPlatformError(result.error, 'INVALID_INPUT')).toBe(true);
          expect(Array.isArray(result.error.details?.issues)).toBe(true);
          expect(result.error.details?.issues).not.toHaveLength(0);
        }
        try {
          schema.parse(value);
        } catch (error) {
          expect(isPlatformError(error, 'INVALID_INPUT')).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('accepts every value built to match the schema, unchanged', () => {
    fc.assert(
      fc.property(
        schemaCase.chain((c) => c.valid.map((value) => ({ schema: c.schema, value }))),
        ({ schema, value }) => {
          const result = schema.safeParse(value);
          expect(result.success).toBe(true);
          if (result.success) expect(result.data).toEqual(value);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('rejects any unknown field added to a valid object', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((k) => k !== 'a'),
        fc.jsonValue(),
        (key, extra) => {
          const schema = s.object({ a: s.number() });
          const result = schema.safeParse({ a: 1, [key]: extra });
          expect(result.success).toBe(false);
        },
      ),
    );
  });
});
