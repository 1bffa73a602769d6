import { type JsonObject, PlatformError } from '@platform/errors';
import type { core } from 'zod';

/** One problem found while parsing input. */
export interface InputIssue {
  /** Where the problem is, such as `items[2].title`; the empty string for the value itself. */
  readonly path: string;
  /** What is wrong, in words a person can act on. */
  readonly message: string;
  /** The kind of problem (`invalid_type`, `too_big`, `unrecognized_keys`, ...). */
  readonly code: string;
}

// Hoisted: a regular expression literal is a new object each time the function runs.
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Formats the path of an input issue as a JavaScript accessor: `items[2].title`,
 * `tags["first name"]`. Input is any JSON, so a key that is not an identifier is quoted and the
 * path still names one value unambiguously; `INVALID_INPUT` messages and `details.issues` show
 * paths this way. (Manifest diagnostics use `formatManifestPath` of
 * `@platform/schema/manifest` instead: they name platform.yaml keys as the file writes them.)
 *
 * @example
 * ```ts
 * formatInputPath(['items', 2, 'title']); // 'items[2].title'
 * formatInputPath(['tags', 'first name']); // 'tags["first name"]'
 * ```
 */
export function formatInputPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * The former name of {@link formatInputPath}, which `@platform/schema/manifest` also used for a
 * different path format.
 *
 * @deprecated Use {@link formatInputPath}.
 */
export const formatPath: (path: readonly PropertyKey[]) => string = formatInputPath;

export function toInputIssues(issues: readonly core.$ZodIssue[]): InputIssue[] {
  return issues.map((issue) => ({
    path: formatInputPath(issue.path),
    message: issue.message,
    code: issue.code,
  }));
}

const SHOWN = 3;

/** The `INVALID_INPUT` error for `issues`, its message naming the first few. */
export function invalidInput(issues: readonly InputIssue[]): PlatformError<'INVALID_INPUT'> {
  // Concatenated in a loop: a failed parse builds this message every time (bench/schema), and
  // slice, map and join cost as much again.
  let message = 'Invalid input: ';
  const shown = Math.min(issues.length, SHOWN);
  for (let i = 0; i < shown; i++) {
    const issue = issues[i] as InputIssue;
    message += `${i === 0 ? '' : '; '}${issue.path || '(input)'}: ${issue.message}`;
  }
  if (issues.length > SHOWN) message += ` (and ${issues.length - SHOWN} more)`;
  // The stack of an input error only points into the validator; the useful location is
  // `details.issues`. Capturing it was 70% of the cost of a failed parse (bench/schema), so it
  // is skipped where the engine allows (V8: Node, Deno, Chromium).
  const engine = Error as { stackTraceLimit?: number | undefined };
  const limit = engine.stackTraceLimit;
  engine.stackTraceLimit = 0;
  try {
    return new PlatformError({
      code: 'INVALID_INPUT',
      message,
      details: { issues: issues as InputIssue[] as unknown as JsonObject[] },
    });
  } finally {
    engine.stackTraceLimit = limit;
  }
}
