import type { z } from 'zod';
import type { ManifestDiagnosticCode } from './codes.ts';
import { type Diagnostic, diagnostic, formatManifestPath, type PathSegment } from './diagnostic.ts';
import type { Anchor, SourceLocator } from './locate.ts';
import { namingRuleForPattern } from './patterns.ts';
import { didYouMean } from './suggest.ts';

/** Codes for value errors at specific paths; `[]` is any list index, `*` any slot name. */
const codesByPath: Record<string, ManifestDiagnosticCode> = {
  schemaVersion: 'SCHEMA_VERSION_UNSUPPORTED',
  'runtime.sdk.version': 'SDK_VERSION_INVALID',
  visibility: 'VISIBILITY_INVALID',
  'functions[].access': 'FUNCTION_ACCESS_INVALID',
  'functions[].route.methods[]': 'ROUTE_METHOD_INVALID',
  'data.search[].fullText.language': 'SEARCH_LANGUAGE_INVALID',
  'provides.integration.credentials': 'INTEGRATION_TOO_MANY_CREDENTIALS',
  'provides.integration.authorization.type': 'INTEGRATION_OAUTH_TYPE_UNSUPPORTED',
  'integrations.*.provider': 'SLOT_PROVIDER_UNSUPPORTED',
  'integrations.*.account': 'SLOT_ACCOUNT_INVALID',
  'integrations.*.cardinality': 'SLOT_CARDINALITY_UNSUPPORTED',
};

const hintsByPath: Record<string, string> = {
  SCHEMA_VERSION_UNSUPPORTED: 'Use schemaVersion: 3 (1 and 2 are older versions).',
  INTEGRATION_OAUTH_TYPE_UNSUPPORTED:
    'Only the authorization-code flow is supported: write type: oauth2 (no device or client-credentials flows).',
  SDK_VERSION_INVALID: 'Write the full version as a string, e.g. version: 2.6.0.',
  SLOT_PROVIDER_UNSUPPORTED: 'Organisation-built integrations use provider: custom.',
  INTEGRATION_TOO_MANY_CREDENTIALS: 'An integration contract declares at most 20 credentials.',
};

function pathKey(path: readonly PathSegment[]): string {
  let key = formatManifestPath(path.map((s) => (typeof s === 'number' ? -1 : s))).replaceAll(
    '[-1]',
    '[]',
  );
  if (path[0] === 'integrations' && path.length > 1) {
    key = `integrations.*${key.slice(`integrations.${String(path[1])}`.length)}`;
  }
  return key;
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  return value;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

interface ZodDef {
  readonly type: string;
  readonly shape?: Record<string, { _zod: { def: ZodDef } }>;
  readonly element?: { _zod: { def: ZodDef } };
  readonly innerType?: { _zod: { def: ZodDef } };
  readonly valueType?: { _zod: { def: ZodDef } };
  readonly in?: { _zod: { def: ZodDef } };
}

/** The known keys of the object schema at `path`, for "did you mean" hints. */
function knownKeys(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  let def = (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
  const unwrap = () => {
    for (;;) {
      const inner = def.innerType ?? def.in;
      if (inner === undefined) return;
      def = inner._zod.def;
    }
  };
  unwrap();
  for (const segment of path) {
    const next =
      def.type === 'object' && typeof segment === 'string'
        ? def.shape?.[segment]
        : def.type === 'array'
          ? def.element
          : def.type === 'record'
            ? def.valueType
            : undefined;
    if (next === undefined) return [];
    def = next._zod.def;
    unwrap();
  }
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

const typeNames: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

/** Context of one zod parse, to turn its issues into diagnostics. */
export interface IssueContext {
  readonly schema: z.ZodType;
  readonly data: unknown;
  readonly file: string;
  readonly locator: SourceLocator | undefined;
}

/** Turns one zod issue into one or more located diagnostics. */
export function issueToDiagnostics(issue: z.core.$ZodIssue, ctx: IssueContext): Diagnostic[] {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
  // `located` is where to point when it differs from the reported path (a missing field).
  const at = (p: readonly PathSegment[], anchor: Anchor = 'value', located = p) => {
    const pos = ctx.locator?.locate(located, anchor) ?? { line: 0, column: 0 };
    return { path: formatManifestPath(p), file: ctx.file, ...pos };
  };
  const name = formatManifestPath(path);
  const value = valueAt(ctx.data, path);
  const specific = codesByPath[pathKey(path)];

  if (issue.code === 'unrecognized_keys') {
    const keys = knownKeys(ctx.schema, path);
    return issue.keys.map((key) => {
      const where = name === '' ? 'the top level' : name;
      const allowed = keys.filter((k) => k !== '$schema').join(', ');
      return diagnostic(
        'UNKNOWN_FIELD',
        `Unknown field "${key}" in ${where}.${didYouMean(key, keys)} Allowed fields: ${allowed}.`,
        at([...path, key], 'key'),
      );
    });
  }
  if (issue.code === 'invalid_key') {
    const inner = issue.issues[0];
    const rule = namingRuleForPattern(inner?.code === 'invalid_format' ? inner.pattern : undefined);
    const key = String(path[path.length - 1]);
    return [
      diagnostic(
        rule?.code ?? 'INVALID_VALUE',
        `The name "${key}" must ${rule?.hint ?? 'be a valid name'}.`,
        at(path, 'key'),
      ),
    ];
  }
  if (value === undefined && path.length > 0) {
    const parent = path.slice(0, -1);
    return [
      diagnostic(
        'REQUIRED_FIELD_MISSING',
        `Missing required field "${String(path[path.length - 1])}"${parent.length ? ` in ${formatManifestPath(parent)}` : ''}.`,
        at(path, 'value', parent),
      ),
    ];
  }
  if (issue.code === 'invalid_format' && issue.format === 'regex') {
    const rule = namingRuleForPattern(issue.pattern);
    return [
      diagnostic(
        rule?.code ?? 'INVALID_VALUE',
        `${name} must ${rule?.hint ?? `match ${issue.pattern}`} (got ${show(value)}).`,
        at(path),
      ),
    ];
  }
  if (issue.code === 'invalid_value') {
    const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ');
    const suggestion =
      typeof value === 'string'
        ? didYouMean(
            value,
            issue.values.filter((v): v is string => typeof v === 'string'),
          )
        : '';
    const hint = specific ? hintsByPath[specific] : undefined;
    return [
      diagnostic(
        specific ?? 'INVALID_VALUE',
        `${name} must be one of ${allowed} (got ${show(value)}).${suggestion}${hint ? ` ${hint}` : ''}`,
        at(path),
      ),
    ];
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    const small = issue.code === 'too_small';
    const bound = Number(small ? issue.minimum : issue.maximum);
    const what =
      issue.origin === 'array'
        ? `at ${small ? 'least' : 'most'} ${bound} item${bound === 1 ? '' : 's'}`
        : issue.origin === 'string'
          ? small && bound === 1
            ? 'not empty'
            : `at ${small ? 'least' : 'most'} ${bound} characters`
          : `at ${small ? 'least' : 'most'} ${bound}`;
    const hint = specific ? hintsByPath[specific] : undefined;
    return [
      diagnostic(
        specific ?? (small ? 'VALUE_TOO_SMALL' : 'VALUE_TOO_LARGE'),
        `${name} must be ${what} (got ${Array.isArray(value) ? `${value.length} items` : show(value)}).${hint ? ` ${hint}` : ''}`,
        at(path),
      ),
    ];
  }
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    const expected =
      issue.code === 'invalid_type' ? (typeNames[issue.expected] ?? issue.expected) : 'JSON';
    return [
      diagnostic(
        specific ?? 'INVALID_TYPE',
        `${name === '' ? 'platform.yaml' : name} must be ${expected} (got ${show(value)}).${specific ? ` ${hintsByPath[specific] ?? ''}` : ''}`.trimEnd(),
        at(path),
      ),
    ];
  }
  return [diagnostic(specific ?? 'INVALID_VALUE', `${name}: ${issue.message}.`, at(path))];
}
