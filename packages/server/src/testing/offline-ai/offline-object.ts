import { type JsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { hash32, random } from './seed.ts';

type Schema = JsonObject;

const MAX_DEPTH = 32;

/** An AI_INPUT_INVALID naming the place in the schema that cannot be satisfied. */
function unsatisfiable(path: string, reason: string): PlatformError {
  return new PlatformError({
    code: 'AI_INPUT_INVALID',
    message: `The schema cannot be satisfied at ${path || '(root)'}: ${reason}.`,
    details: { field: 'schema', path: path || '/' },
  });
}

const isObject = (v: unknown): v is Schema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: JsonValue | undefined): number | undefined =>
  typeof v === 'number' ? v : undefined;

interface Walk {
  readonly root: Schema;
  readonly seed: string;
  readonly words: readonly string[];
}

/**
 * The offline answer to `generateObject`: a value valid for `schema` (the JSON Schema the SDK
 * sends), derived from the prompt and the schema alone. It honours `type`, `enum`, `const`,
 * `required`/`properties`, `items`/`prefixItems` with `minItems`/`maxItems`, numeric bounds and
 * `multipleOf`, string lengths, the formats uuid, date-time, date, time, email, uri and ipv4,
 * `anyOf`/`oneOf` (the first branch that can be satisfied), `allOf` of one branch and local
 * `$ref`s. A schema with no valid value, or a rule this generator cannot honour (`pattern`,
 * `not`), throws `AI_INPUT_INVALID` naming the place.
 */
export function offlineObject(prompt: string, schema: Schema): JsonValue {
  const words = prompt
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
  return value({ root: schema, seed: prompt, words }, schema, '', 0);
}

function resolve(walk: Walk, schema: Schema, path: string): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  if (!ref.startsWith('#')) throw unsatisfiable(path, `remote $ref ${ref} is not supported`);
  let target: JsonValue = walk.root;
  for (const part of ref
    .slice(1)
    .split('/')
    .filter((p) => p !== '')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) ? (target[key] ?? null) : null;
  }
  if (!isObject(target)) throw unsatisfiable(path, `$ref ${ref} does not resolve`);
  const { $ref: _, ...rest } = schema;
  return { ...target, ...rest };
}

function value(walk: Walk, raw: JsonValue | undefined, path: string, depth: number): JsonValue {
  if (depth > MAX_DEPTH) throw unsatisfiable(path, 'the schema nests too deeply');
  if (raw === true || raw === undefined) return null;
  if (raw === false) throw unsatisfiable(path, 'false admits no value');
  if (!isObject(raw)) throw unsatisfiable(path, 'not a schema object');
  const schema = resolve(walk, raw, path);
  if (schema.not !== undefined) throw unsatisfiable(path, '"not" is not supported');
  if ('const' in schema) return schema.const ?? null;
  if (Array.isArray(schema.enum)) {
    if (schema.enum.length === 0) throw unsatisfiable(path, 'enum is empty');
    return schema.enum[0] ?? null;
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return firstBranch(walk, schema, branches, path, depth);
  if (Array.isArray(schema.allOf)) {
    if (schema.allOf.length !== 1)
      throw unsatisfiable(path, 'allOf of several schemas is not supported');
    const { allOf, ...rest } = schema;
    return value(walk, { ...(allOf[0] as Schema), ...rest }, path, depth + 1);
  }
  const type = pickType(schema.type, path);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return hash32(`${walk.seed}${path}`) % 2 === 0;
    case 'integer':
    case 'number':
      return number(walk, schema, type, path);
    case 'string':
      return string(walk, schema, path);
    case 'array':
      return array(walk, schema, path, depth);
    case 'object':
      return object(walk, schema, path, depth);
  }
}

function firstBranch(
  walk: Walk,
  schema: Schema,
  branches: JsonValue[],
  path: string,
  depth: number,
): JsonValue {
  const { anyOf: _a, oneOf: _o, ...rest } = schema;
  // Prefer a non-null branch: `nullable(x)` should produce an x.
  const ordered = [...branches].sort(
    (a, b) => Number(isObject(a) && a.type === 'null') - Number(isObject(b) && b.type === 'null'),
  );
  let last: unknown;
  for (const branch of ordered) {
    try {
      return value(walk, isObject(branch) ? { ...rest, ...branch } : branch, path, depth + 1);
    } catch (error) {
      last = error;
    }
  }
  throw last ?? unsatisfiable(path, 'anyOf/oneOf has no branches');
}

type TypeName = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';
const TYPES: readonly TypeName[] = [
  'object',
  'array',
  'string',
  'number',
  'integer',
  'boolean',
  'null',
];

function pickType(type: JsonValue | undefined, path: string): TypeName {
  if (type === undefined) return 'string';
  const names = Array.isArray(type) ? type : [type];
  const known =
    TYPES.find((t) => names.includes(t) && t !== 'null') ?? TYPES.find((t) => names.includes(t));
  if (!known) throw unsatisfiable(path, `type ${JSON.stringify(type)} is not a JSON Schema type`);
  return known;
}

function number(walk: Walk, schema: Schema, type: 'integer' | 'number', path: string): number {
  let lo = num(schema.minimum) ?? Number.NEGATIVE_INFINITY;
  let hi = num(schema.maximum) ?? Number.POSITIVE_INFINITY;
  const exLo = num(schema.exclusiveMinimum);
  const exHi = num(schema.exclusiveMaximum);
  const step = num(schema.multipleOf) ?? (type === 'integer' ? 1 : undefined);
  if (type === 'integer' || step !== undefined) {
    const unit = step ?? 1;
    if (exLo !== undefined) lo = Math.max(lo, (Math.floor(exLo / unit) + 1) * unit);
    if (exHi !== undefined) hi = Math.min(hi, (Math.ceil(exHi / unit) - 1) * unit);
    const first = Number.isFinite(lo)
      ? Math.ceil(lo / unit)
      : Number.isFinite(hi)
        ? Math.floor(hi / unit) - 9
        : 0;
    const last = Number.isFinite(hi) ? Math.floor(hi / unit) : first + 9;
    if (first > last) throw unsatisfiable(path, 'no number lies within the bounds');
    const span = Math.min(last - first, 9);
    const pick = first + Math.floor(random(hash32(`${walk.seed}${path}`))() * (span + 1));
    return pick * unit;
  }
  if (exLo !== undefined) lo = Math.max(lo, exLo);
  if (exHi !== undefined) hi = Math.min(hi, exHi);
  if (lo > hi || ((exLo !== undefined || exHi !== undefined) && lo === hi)) {
    throw unsatisfiable(path, 'no number lies within the bounds');
  }
  const from = Number.isFinite(lo) ? lo : Number.isFinite(hi) ? hi - 10 : 0;
  const to = Number.isFinite(hi) ? hi : from + 10;
  // The midpoint of the (clamped) range, rounded to two places where that stays inside.
  const mid = from + (to - from) * (0.25 + random(hash32(`${walk.seed}${path}`))() / 2);
  const rounded = Math.round(mid * 100) / 100;
  return rounded > lo && rounded < hi ? rounded : mid;
}

function string(walk: Walk, schema: Schema, path: string): string {
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength) ?? Number.POSITIVE_INFINITY;
  if (min > max) throw unsatisfiable(path, 'minLength is greater than maxLength');
  const h = hash32(`${walk.seed}${path}`);
  const hex = (n: number) =>
    Array.from({ length: n }, (_, i) => ((hash32(`${h}:${i}`) >>> 4) & 0xf).toString(16)).join('');
  let text: string;
  switch (schema.format) {
    case 'uuid':
      text = `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[h % 4]}${hex(3)}-${hex(12)}`;
      break;
    case 'date-time':
      text = `${date(h)}T${time(h)}.000Z`;
      break;
    case 'date':
      text = date(h);
      break;
    case 'time':
      text = `${time(h)}Z`;
      break;
    case 'email':
      text = `${walk.words[0] ?? 'user'}.${hex(4)}@example.com`;
      break;
    case 'uri':
    case 'url':
      text = `https://example.com/${hex(8)}`;
      break;
    case 'ipv4':
      text = `192.0.2.${h % 256}`;
      break;
    default: {
      // The prompt's first words, capitalised; array items are numbered so they differ.
      const words = walk.words.length > 0 ? walk.words.slice(0, 6).join(' ') : 'offline';
      const index = path.split('/').pop() ?? '';
      text = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
      if (/^\d+$/.test(index)) text = `${text} ${Number(index) + 1}`;
    }
  }
  if (text.length < min) text = text.padEnd(min, ' x').slice(0, Math.max(min, text.length));
  if (text.length > max) {
    if (schema.format !== undefined)
      throw unsatisfiable(path, `a ${String(schema.format)} is longer than maxLength`);
    text = text.slice(0, max).trimEnd().padEnd(Math.min(min, max), 'x');
  }
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(text)) {
    throw unsatisfiable(
      path,
      `the offline provider cannot produce strings matching /${schema.pattern}/`,
    );
  }
  return text;
}

function date(h: number): string {
  const d = new Date(Date.UTC(2024, 0, 1) + (h % 730) * 86_400_000);
  return d.toISOString().slice(0, 10);
}

function time(h: number): string {
  const s = h % 86_400;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

function array(walk: Walk, schema: Schema, path: string, depth: number): JsonValue[] {
  const min = num(schema.minItems) ?? 0;
  const max = num(schema.maxItems) ?? Number.POSITIVE_INFINITY;
  if (min > max) throw unsatisfiable(path, 'minItems is greater than maxItems');
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const wanted = Math.max(min, Math.min(max, prefix.length > 0 ? prefix.length : 2));
  if (schema.items === false && wanted > prefix.length) {
    throw unsatisfiable(path, 'minItems needs more items than prefixItems allows');
  }
  if (schema.uniqueItems === true && wanted > 1 && !prefix.length) {
    // Distinct items come from distinct paths; enums and consts could still collide.
    const items = isObject(schema.items) ? resolve(walk, schema.items, path) : {};
    if ('const' in items || Array.isArray(items.enum)) {
      const count = 'const' in items ? 1 : (items.enum as JsonValue[]).length;
      if (count < wanted)
        throw unsatisfiable(path, 'uniqueItems needs more distinct values than the items allow');
      return (items.enum as JsonValue[]).slice(0, wanted);
    }
  }
  return Array.from({ length: wanted }, (_, i) =>
    value(walk, i < prefix.length ? prefix[i] : (schema.items ?? {}), `${path}/${i}`, depth + 1),
  );
}

function object(walk: Walk, schema: Schema, path: string, depth: number): JsonObject {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r) => typeof r === 'string')
    : [];
  const out: Record<string, JsonValue> = {};
  for (const [key, child] of Object.entries(properties)) {
    out[key] = value(walk, child, `${path}/${key}`, depth + 1);
  }
  for (const key of required) {
    if (!(key in out)) {
      if (schema.additionalProperties === false) {
        throw unsatisfiable(path, `required property ${key} is not among the allowed properties`);
      }
      out[key] = value(
        walk,
        isObject(schema.additionalProperties) ? schema.additionalProperties : {},
        `${path}/${key}`,
        depth + 1,
      );
    }
  }
  const minProps = num(schema.minProperties) ?? 0;
  if (Object.keys(out).length < minProps) {
    throw unsatisfiable(path, 'minProperties needs more properties than the schema names');
  }
  return out;
}
