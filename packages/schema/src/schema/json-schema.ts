import { z } from 'zod';
import { type Schema, zodOf } from './schema.ts';

/** A JSON Schema document (draft 2020-12). */
export type JSONSchema = { readonly [key: string]: unknown };

/**
 * The JSON Schema (draft 2020-12) of an input schema, for integration operation contracts,
 * editors and docs.
 *
 * @example
 * ```ts
 * toJSONSchema(s.object({ id: s.uuid() }));
 * // { type: 'object', properties: { id: { type: 'string', format: 'uuid', ... } },
 * //   required: ['id'], additionalProperties: false, ... }
 * ```
 */
export function toJSONSchema(schema: Schema): JSONSchema {
  return z.toJSONSchema(zodOf(schema), { target: 'draft-2020-12', io: 'input' }) as JSONSchema;
}
