import { limits } from './limits.ts';

/** What {@link findJsonInputProblem} found wrong with a parsed JSON value, and where. */
export interface JsonInputProblem {
  /** A sentence for the error message, naming the place (`$.a.b[2]`). */
  readonly message: string;
  /** The place, as a JSONPath-like string starting at `$`. */
  readonly path: string;
}

interface Entry {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Entry | undefined;
  readonly key: string | number | undefined;
}

/**
 * Checks a value fresh from `JSON.parse` against the rules every JSON body read by the platform
 * follows, and returns the first problem or `undefined`:
 *
 * - nesting at most `limits.json.maxDepth` levels of arrays and objects (deeper input made the
 *   recursive code after parsing fail);
 * - no NUL character (U+0000) in any string or key (PostgreSQL text cannot hold one);
 * - no `__proto__` key (copying a record with one drops it silently, so a filter on it would
 *   match every row);
 * - only finite numbers (`JSON.parse` reads `1e309` as `Infinity`, which later turns into `null`).
 *
 * The walk uses its own stack, never recursion, so any depth is checked without a stack overflow.
 *
 * @example
 * ```ts
 * const problem = findJsonInputProblem(JSON.parse(text));
 * if (problem) throw new Error(problem.message);
 * ```
 */
export function findJsonInputProblem(value: unknown): JsonInputProblem | undefined {
  const maxDepth = limits.json.maxDepth;
  const stack: Entry[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const current = entry.value;
    if (typeof current === 'string') {
      if (current.includes('\u0000'))
        return problem(entry, 'contains a NUL character (\\u0000), which is not accepted');
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current))
        return problem(entry, 'is a number too large for a 64-bit float (it reads as infinity)');
    } else if (typeof current === 'object' && current !== null) {
      const depth = entry.depth + 1;
      if (depth > maxDepth)
        return problem(entry, `nests arrays and objects deeper than ${maxDepth} levels`);
      if (Array.isArray(current)) {
        for (let i = current.length - 1; i >= 0; i--)
          stack.push({ value: current[i], depth, parent: entry, key: i });
      } else {
        for (const key of Object.keys(current)) {
          const child: Entry = { value: undefined, depth, parent: entry, key };
          if (key === '__proto__')
            return problem(child, 'is a `__proto__` key, which is not accepted');
          if (key.includes('\u0000'))
            return problem(child, 'is a key with a NUL character (\\u0000), which is not accepted');
          stack.push({ ...child, value: (current as Record<string, unknown>)[key] });
        }
      }
    }
  }
  return undefined;
}

function problem(entry: Entry, what: string): JsonInputProblem {
  const keys: (string | number)[] = [];
  for (let e: Entry | undefined = entry; e?.key !== undefined; e = e.parent) keys.push(e.key);
  let path = '$';
  for (const key of keys.reverse()) {
    path +=
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `.${key}`
          : `[${JSON.stringify(key)}]`;
  }
  // A path into a too-deep value is as long as the value is deep: show its start only.
  if (path.length > 200) path = `${path.slice(0, 200)}…`;
  return { message: `The JSON value at ${path} ${what}.`, path };
}
