import { z } from 'zod';
import { type Infer, type Schema, wrap, zodOf } from './schema.ts';

/** The fields of an object schema. */
export type Shape = { readonly [key: string]: Schema };

type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends Schema<unknown, 'optional'> ? K : never;
}[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The static type of `s.object(shape)`: keys whose schema is `s.optional(...)` may be absent. */
export type ObjectOutput<S extends Shape> = Simplify<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & {
    [K in OptionalKeys<S>]?: Infer<S[K]>;
  }
>;

/** A value `s.literal` accepts. */
export type LiteralValue = string | number | boolean | null;

/** Options of {@link s.string}. */
export interface StringOptions {
  /** Fewest characters allowed. */
  readonly minLength?: number;
  /** Most characters allowed. */
  readonly maxLength?: number;
  /** A pattern the whole string must match (anchor it with `^...$`). */
  readonly pattern?: RegExp;
}

/** Options of {@link s.number}. Numbers are always finite. */
export interface NumberOptions {
  /** Smallest value allowed (inclusive). */
  readonly min?: number;
  /** Largest value allowed (inclusive). */
  readonly max?: number;
  /**
   * Accept whole numbers only.
   * @default false
   */
  readonly integer?: boolean;
}

/** Options of {@link s.array}. */
export interface ArrayOptions {
  /** Fewest items allowed. */
  readonly minItems?: number;
  /** Most items allowed. */
  readonly maxItems?: number;
}

function count(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
    throw new TypeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function bound(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a finite number, got ${String(value)}`);
  }
  return value;
}

/**
 * The input schema helpers. Objects reject unknown fields at every depth; numbers are finite.
 *
 * @example
 * ```ts
 * const input = s.object({
 *   title: s.string({ minLength: 1, maxLength: 200 }),
 *   listId: s.uuid(),
 *   tags: s.array(s.string(), { maxItems: 10 }),
 *   priority: s.enum(['low', 'high']),
 *   note: s.optional(s.nullable(s.string())),
 * });
 * type Input = Infer<typeof input>;
 * ```
 */
export const s = {
  /** A string, optionally bounded in length and matched against a pattern. */
  string(options: StringOptions = {}): Schema<string, 'string'> {
    let schema = z.string();
    const min = count('minLength', options.minLength);
    const max = count('maxLength', options.maxLength);
    if (min !== undefined) schema = schema.min(min);
    if (max !== undefined) schema = schema.max(max);
    if (options.pattern !== undefined) {
      if (!(options.pattern instanceof RegExp)) throw new TypeError('pattern must be a RegExp');
      schema = schema.regex(options.pattern, {
        error: `Must match the pattern ${options.pattern}`,
      });
    }
    return wrap('string', schema);
  },

  /** A UUID string (RFC 9562, any version). */
  uuid(): Schema<string, 'uuid'> {
    return wrap('uuid', z.uuid());
  },

  /** A finite number, optionally bounded or whole. */
  number(options: NumberOptions = {}): Schema<number, 'number'> {
    let schema = options.integer ? z.int() : z.number();
    const min = bound('min', options.min);
    const max = bound('max', options.max);
    if (min !== undefined) schema = schema.gte(min);
    if (max !== undefined) schema = schema.lte(max);
    return wrap('number', schema);
  },

  /** `true` or `false`. */
  boolean(): Schema<boolean, 'boolean'> {
    return wrap('boolean', z.boolean());
  },

  /** Exactly `value`. */
  literal<const Value extends LiteralValue>(value: Value): Schema<Value, 'literal'> {
    const allowed = value === null || ['string', 'number', 'boolean'].includes(typeof value);
    if (!allowed) throw new TypeError('s.literal takes a string, number, boolean or null');
    return wrap('literal', z.literal(value) as unknown as z.ZodType<Value>);
  },

  /** One of the given strings. */
  enum<const Values extends readonly [string, ...string[]]>(
    values: Values,
  ): Schema<Values[number], 'enum'> {
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.some((v) => typeof v !== 'string')
    ) {
      throw new TypeError('s.enum takes a non-empty array of strings');
    }
    return wrap('enum', z.enum(values) as unknown as z.ZodType<Values[number]>);
  },

  /** An array whose items all match `item`. */
  array<Item extends Schema>(
    item: Item,
    options: ArrayOptions = {},
  ): Schema<Infer<Item>[], 'array'> {
    let schema = z.array(zodOf(item) as z.ZodType<Infer<Item>>);
    const min = count('minItems', options.minItems);
    const max = count('maxItems', options.maxItems);
    if (min !== undefined) schema = schema.min(min);
    if (max !== undefined) schema = schema.max(max);
    return wrap('array', schema);
  },

  /** An object with exactly these fields; any other field is rejected. */
  object<S extends Shape>(shape: S): Schema<ObjectOutput<S>, 'object'> {
    if (typeof shape !== 'object' || shape === null || Array.isArray(shape)) {
      throw new TypeError('s.object takes an object of schemas');
    }
    const fields: Record<string, z.ZodType> = {};
    for (const [key, value] of Object.entries(shape)) fields[key] = zodOf(value);
    return wrap('object', z.strictObject(fields) as unknown as z.ZodType<ObjectOutput<S>>);
  },

  /** `inner` or absent; in an object the field may be left out. */
  optional<Inner extends Schema>(inner: Inner): Schema<Infer<Inner> | undefined, 'optional'> {
    return wrap('optional', zodOf(inner).optional() as z.ZodType<Infer<Inner> | undefined>);
  },

  /** `inner` or `null`. */
  nullable<Inner extends Schema>(inner: Inner): Schema<Infer<Inner> | null, 'nullable'> {
    return wrap('nullable', zodOf(inner).nullable() as z.ZodType<Infer<Inner> | null>);
  },
} as const;
