import { type ManifestDiagnosticCode, manifestDiagnosticCodes, type Severity } from './codes.ts';

/**
 * One problem found in a manifest (or in a Function file it points at), located like a
 * compiler error.
 */
export interface Diagnostic {
  /** Stable code from {@link manifestDiagnosticCodes}. */
  readonly code: ManifestDiagnosticCode;
  /** What is wrong and how to fix it. */
  readonly message: string;
  /** Manifest path of the offending field, e.g. `queues[2].function`; `''` for the whole file. */
  readonly path: string;
  /** File the line and column refer to: `platform.yaml`, or the importing source file. */
  readonly file: string;
  /** One-based line; `0` when the manifest was not parsed from text. */
  readonly line: number;
  /** One-based column; `0` when the manifest was not parsed from text. */
  readonly column: number;
  /** `error` blocks deployment; `warning` does not. */
  readonly severity: Severity;
}

/** The outcome of parsing or validating a manifest. */
export interface ManifestResult<M> {
  /** The typed manifest with defaults applied, or `undefined` when its structure is invalid. */
  readonly manifest: M | undefined;
  /** Diagnostics of severity `error`, in source order. */
  readonly errors: Diagnostic[];
  /** Diagnostics of severity `warning`, in source order. */
  readonly warnings: Diagnostic[];
}

/** One step of a manifest path: a mapping key or a list index. */
export type PathSegment = string | number;

/**
 * Formats a manifest path the way diagnostics show it: `queues[2].function`,
 * `integrations.crm-app.account`. Keys are written as platform.yaml writes them, never quoted,
 * so a diagnostic names a field the way the file and the docs do. Input paths use `formatInputPath` of `@platform/schema` instead, which quotes
 * keys that are not identifiers because input keys may hold any character.
 *
 * @example
 * ```ts
 * formatManifestPath(['queues', 2, 'function']); // 'queues[2].function'
 * ```
 */
export function formatManifestPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/**
 * The former name of {@link formatManifestPath}, which `@platform/schema` also used for a
 * different path format.
 *
 * @deprecated Use {@link formatManifestPath}.
 */
export const formatPath: (path: readonly PathSegment[]) => string = formatManifestPath;

/** Builds a diagnostic, taking the severity from the catalog. */
export function diagnostic(
  code: ManifestDiagnosticCode,
  message: string,
  at: { path: string; file: string; line: number; column: number },
): Diagnostic {
  return { code, message, ...at, severity: manifestDiagnosticCodes[code].severity };
}

/** Sorts diagnostics by file, line and column, and splits them into errors and warnings. */
export function splitDiagnostics(all: readonly Diagnostic[]): {
  errors: Diagnostic[];
  warnings: Diagnostic[];
} {
  const sorted = [...all].sort(
    (a, b) =>
      (a.file === b.file ? 0 : a.file < b.file ? -1 : 1) || a.line - b.line || a.column - b.column,
  );
  return {
    errors: sorted.filter((d) => d.severity === 'error'),
    warnings: sorted.filter((d) => d.severity === 'warning'),
  };
}

/**
 * Formats a diagnostic like a compiler: `platform.yaml:12:5 error QUEUE_CONSUMER_NOT_SYSTEM ...`.
 *
 * @example
 * ```ts
 * for (const d of result.errors) console.error(formatDiagnostic(d));
 * ```
 */
export function formatDiagnostic(d: Diagnostic, file: string = d.file): string {
  const where = d.line > 0 ? `${file}:${d.line}:${d.column}` : file;
  const path = d.path === '' ? '' : ` (at ${d.path})`;
  return `${where} ${d.severity} ${d.code} ${d.message}${path}`;
}
