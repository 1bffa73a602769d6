import { z } from 'zod';

/**
 * Why `value` does not match the JSON Schema `schema` (an integration operation's declared
 * `output`), as one line naming the first failing path; `undefined` when it matches. A schema
 * that cannot be read is reported too, so a broken contract never passes every value.
 *
 * @example
 * ```ts
 * jsonSchemaProblem({ type: 'object', required: ['id'] }, {}); // 'id: Invalid input: ...'
 * ```
 */
export function jsonSchemaProblem(
  schema: Readonly<Record<string, unknown>>,
  value: unknown,
): string | undefined {
  let parsed: z.ZodType;
  try {
    parsed = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return `the declared output schema cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
  const result = parsed.safeParse(value);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return 'the value does not match';
  const path = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  return `${path}${issue.message}`;
}
