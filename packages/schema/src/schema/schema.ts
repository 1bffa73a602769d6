import type { PlatformError } from '@platform/errors';
import { core, type z } from 'zod';
import { type InputIssue, invalidInput, toInputIssues } from './issues.ts';
import type { StandardSchemaV1 } from './standard-schema.ts';

/** The helper that made a schema. */
export type SchemaKind =
  | 'string'
  | 'uuid'
  | 'number'
  | 'boolean'
  | 'literal'
  | 'enum'
  | 'array'
  | 'object'
  | 'optional'
  | 'nullable';

/** The result of {@link Schema.safeParse}. */
export type SafeParseResult<Output> =
  | { readonly success: true; readonly data: Output }
  | { readonly success: false; readonly error: PlatformError<'INVALID_INPUT'> };

/**
 * An input schema made by one of the `s.*` helpers. It is a Standard Schema, so other tools
 * validate with it too.
 */
export interface Schema<Output = unknown, Kind extends SchemaKind = SchemaKind>
  extends StandardSchemaV1<unknown, Output> {
  /** The helper that made this schema. */
  readonly kind: Kind;
  /**
   * Returns `value` when it matches; otherwise throws a `PlatformError` with code
   * `INVALID_INPUT`, HTTP 400 and `details.issues` listing every problem. Never throws anything
   * else.
   */
  parse(value: unknown): Output;
  /** Like {@link Schema.parse}, but returns the error instead of throwing it. */
  safeParse(value: unknown): SafeParseResult<Output>;
}

/** The static type a schema accepts. */
export type Infer<S extends Schema> = S extends Schema<infer Output> ? Output : never;

const ZOD = Symbol('zod');

// zod core's parse factory builds the failure's error with `new` from the finalised issues, on
// the first read of `error` (zod keeps it). Given a function that returns our error, it yields
// the `INVALID_INPUT` error directly: no `ZodError` (an Error, so a stack) built only to be
// converted, and no wrapper result of ours. A function rather than an arrow, because `new`.
// biome-ignore lint/complexity/useArrowFunction: zod calls it with `new`.
const toPlatformError = function (issues: readonly core.$ZodIssue[]) {
  return invalidInput(toInputIssues(issues));
} as unknown as core.$ZodErrorClass;
const parseToPlatform = core._safeParse(toPlatformError);

class PlatformSchema<Output, Kind extends SchemaKind> implements Schema<Output, Kind> {
  readonly [ZOD]: z.ZodType<Output>;
  readonly kind: Kind;
  readonly '~standard': StandardSchemaV1.Props<unknown, Output>;

  constructor(kind: Kind, zod: z.ZodType<Output>) {
    this.kind = kind;
    this[ZOD] = zod;
    this['~standard'] = {
      version: 1,
      vendor: 'platform',
      validate: (value) => {
        const result = this.safeParse(value);
        if (result.success) return { value: result.data };
        const issues = (result.error.details?.issues ?? []) as unknown as InputIssue[];
        return { issues: issues.map((issue) => ({ message: issue.message, path: [issue.path] })) };
      },
    };
  }

  parse(value: unknown): Output {
    const result = this.safeParse(value);
    if (result.success) return result.data;
    throw result.error;
  }

  safeParse(value: unknown): SafeParseResult<Output> {
    try {
      return parseToPlatform(this[ZOD], value) as unknown as SafeParseResult<Output>;
    } catch {
      // Exotic values (throwing getters, revoked proxies) must still give INVALID_INPUT.
      return {
        success: false,
        error: invalidInput([{ path: '', message: 'Input could not be read', code: 'unreadable' }]),
      };
    }
  }
}

/** Wraps a zod schema as a platform schema. Internal to `@platform/schema`. */
export function wrap<Output, Kind extends SchemaKind>(
  kind: Kind,
  zod: z.ZodType<Output>,
): Schema<Output, Kind> {
  return new PlatformSchema(kind, zod);
}

/** The zod schema behind a platform schema. Internal to `@platform/schema`. */
export function zodOf<Output>(schema: Schema<Output>): z.ZodType<Output> {
  if (!isSchema(schema)) throw new TypeError('Expected a schema made by one of the s.* helpers');
  return (schema as PlatformSchema<Output, SchemaKind>)[ZOD];
}

/** True when `value` is a schema made by one of the `s.*` helpers. */
export function isSchema(value: unknown): value is Schema {
  return value instanceof PlatformSchema;
}
