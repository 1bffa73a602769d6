import { z } from 'zod';
import { manifestSchema } from './manifest-schema.ts';

/** Where the published JSON Schema of `platform.yaml` is found inside the package. */
export const manifestJsonSchemaId = 'https://platform.dev/schemas/manifest.schema.json';

/**
 * The JSON Schema (draft-07) of `platform.yaml`, generated from the zod schema, for editors with
 * the YAML language server. It carries the structure only; `platform validate` adds the
 * cross-field rules. The package publishes it as `@platform/schema/manifest.schema.json`.
 *
 * @example
 * ```ts
 * JSON.stringify(manifestJsonSchema(), null, 2);
 * ```
 */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(manifestSchema, { io: 'input', target: 'draft-07' });
  return { ...schema, $id: manifestJsonSchemaId, title: 'platform.yaml' };
}
