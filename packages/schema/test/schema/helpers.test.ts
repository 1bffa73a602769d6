import { isPlatformError, type PlatformError } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import { type InputIssue, s } from '../../src/index.ts';

function issuesOf(run: () => unknown): InputIssue[] {
  try {
    run();
  } catch (error) {
    expect(isPlatformError(error, 'INVALID_INPUT')).toBe(true);
    const platformError = error as PlatformError;
    expect(platformError.status).toBe(400);
    return platformError.details?.issues as unknown as InputIssue[];
  }
  throw new Error('expected the parse to fail');
}

describe('s helpers', () => {
  it('string bounds and pattern', () => {
    const title = s.string({ minLength: 1, maxLength: 3, pattern: /^[a-z]+$/ });
    expect(title.parse('abc')).toBe('abc');
    expect(issuesOf(() => title.parse(''))[0]?.code).toBe('too_small');
    expect(issuesOf(() => title.parse('abcd'))[0]?.code).toBe('too_big');
    expect(issuesOf(() => title.parse('AB'))[0]?.message).toContain('pattern');
    expect(issuesOf(() => title.parse(1))[0]?.code).toBe('invalid_type');
  });

  it('uuid accepts RFC 9562 UUIDs only', () => {
    expect(s.uuid().parse('0b6e3f0e-8c5a-4d3c-9a43-0f3b1f9a2c11')).toBeTypeOf('string');
    expect(issuesOf(() => s.uuid().parse('not-a-uuid'))).toHaveLength(1);
  });

  it('numbers are finite, optionally bounded and whole', () => {
    const n = s.number({ min: 0, max: 10, integer: true });
    expect(n.parse(10)).toBe(10);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1, 11, 1.5, '1']) {
      expect(n.safeParse(bad).success).toBe(false);
    }
    expect(s.number().safeParse(Number.NEGATIVE_INFINITY).success).toBe(false);
  });

  it('boolean, literal, enum', () => {
    expect(s.boolean().parse(false)).toBe(false);
    expect(s.literal('platform.cron').parse('platform.cron')).toBe('platform.cron');
    expect(s.literal(null).parse(null)).toBeNull();
    expect(s.literal(3).safeParse(4).success).toBe(false);
    expect(s.enum(['low', 'high']).parse('high')).toBe('high');
    expect(s.enum(['low', 'high']).safeParse('mid').success).toBe(false);
  });

  it('arrays with item bounds report the failing index', () => {
    const tags = s.array(s.string(), { minItems: 1, maxItems: 2 });
    expect(tags.parse(['a'])).toEqual(['a']);
    expect(tags.safeParse([]).success).toBe(false);
    expect(tags.safeParse(['a', 'b', 'c']).success).toBe(false);
    expect(issuesOf(() => tags.parse(['a', 2]))[0]?.path).toBe('[1]');
  });

  it('objects reject unknown fields at every depth', () => {
    const schema = s.object({ a: s.object({ b: s.array(s.object({ c: s.string() })) }) });
    expect(schema.parse({ a: { b: [{ c: 'x' }] } })).toEqual({ a: { b: [{ c: 'x' }] } });
    const issues = issuesOf(() => schema.parse({ a: { b: [{ c: 'x', d: 1 }] }, e: 2 }));
    expect(issues.map((i) => [i.path, i.code]).sort()).toEqual([
      ['', 'unrecognized_keys'],
      ['a.b[0]', 'unrecognized_keys'],
    ]);
  });

  it('optional fields may be absent, nullable ones may be null', () => {
    const schema = s.object({ note: s.optional(s.nullable(s.string())), id: s.uuid() });
    const id = '0b6e3f0e-8c5a-4d3c-9a43-0f3b1f9a2c11';
    expect(schema.parse({ id })).toEqual({ id });
    expect(schema.parse({ id, note: null })).toEqual({ id, note: null });
    expect(issuesOf(() => schema.parse({ note: 'x' }))[0]?.path).toBe('id');
  });

  it('lists every problem with a readable message', () => {
    const schema = s.object({
      title: s.string(),
      done: s.boolean(),
      tags: s.array(s.string()),
      n: s.number(),
    });
    try {
      schema.parse({ title: 1, done: 'yes', tags: 'x', n: null });
      expect.unreachable();
    } catch (error) {
      const e = error as PlatformError;
      expect(e.details?.issues).toHaveLength(4);
      expect(e.message).toMatch(/^Invalid input: title: .+; done: .+; tags: .+ \(and 1 more\)$/);
    }
  });

  it('names up to three problems in the message, the value itself as (input)', () => {
    const three = s.object({ a: s.string(), b: s.string(), c: s.string() }).safeParse({});
    expect(three.success || three.error.message).toMatch(
      /^Invalid input: a: [^;]+; b: [^;]+; c: [^;]+$/,
    );
    const root = s.string().safeParse(1);
    expect(root.success || root.error.message).toMatch(/^Invalid input: \(input\): [^;]+$/);
  });

  it('safeParse returns the error instead of throwing, the same one on every read', () => {
    const result = s.string().safeParse(1);
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error.code).toBe('INVALID_INPUT');
      expect(result.error).toBe(result.error);
    }
  });

  it('implements Standard Schema v1', () => {
    const schema = s.object({ id: s.number() });
    const props = schema['~standard'];
    expect(props.version).toBe(1);
    expect(props.vendor).toBe('platform');
    expect(props.validate({ id: 1 })).toEqual({ value: { id: 1 } });
    const failed = props.validate({ id: 'x' });
    expect('issues' in failed && failed.issues?.[0]?.path).toEqual(['id']);
  });

  it('misuse throws TypeError', () => {
    expect(() => s.string({ minLength: -1 })).toThrow(TypeError);
    expect(() => s.number({ max: Number.NaN })).toThrow(TypeError);
    expect(() => s.enum([] as unknown as ['a'])).toThrow(TypeError);
    expect(() => s.object({ a: 'string' } as never)).toThrow(TypeError);
    expect(() => s.array({} as never)).toThrow(TypeError);
    expect(() => s.literal({} as never)).toThrow(TypeError);
  });

  it('turns unreadable input into INVALID_INPUT rather than another error', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(issuesOf(() => s.object({ a: s.string() }).parse(hostile)).length).toBeGreaterThan(0);
  });
});
