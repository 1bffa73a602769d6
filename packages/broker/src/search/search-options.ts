import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { SearchDeclaration } from '@platform/schema/manifest';

/** A search mode of spec 2.5. */
export type SearchMode = 'fullText' | 'vector' | 'hybrid';

/** An equality filter value; `null` means `IS NULL`. */
export type FilterValue = string | number | boolean | null;

/** Search options after the broker checked every rule of spec 2.5 against the declaration. */
export interface SearchRequest {
  readonly mode: SearchMode;
  /** The trimmed query (`fullText` and `hybrid`). */
  readonly query: string | undefined;
  /** The query vector (`vector` and `hybrid`), every value a float32. */
  readonly vector: readonly number[] | undefined;
  /** Declared filter columns and their values, in the order given. */
  readonly where: ReadonlyArray<readonly [column: string, value: FilterValue]>;
  /** 1 to 50. */
  readonly limit: number;
}

const MODES: readonly SearchMode[] = ['fullText', 'vector', 'hybrid'];
const KNOWN = new Set(['mode', 'query', 'vector', 'model', 'where', 'limit']);
/** The largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;

function invalid(message: string, details: JsonObject = {}): PlatformError {
  return new PlatformError({ code: 'SEARCH_INPUT_INVALID', message, details });
}

/**
 * Checks search options against spec 2.5 and the declaration. The broker never trusts the SDK's
 * own checks (a Function can call the route directly), so every rule is enforced again here, in
 * the same order as the SDK so both report the same code for the same input.
 *
 * @example
 * ```ts
 * const request = readSearchOptions(declaration, { mode: 'fullText', query: ' tea ' });
 * request.query; // 'tea'
 * ```
 */
export function readSearchOptions(declaration: SearchDeclaration, options: unknown): SearchRequest {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalid('Search options must be an object.');
  }
  const input = options as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) {
      throw invalid(`Unknown search option ${JSON.stringify(key)}.`, { field: key });
    }
  }
  const mode = input.mode;
  if (typeof mode !== 'string' || !MODES.includes(mode as SearchMode)) {
    throw invalid(`mode must be one of ${MODES.join(', ')}.`, { field: 'mode' });
  }
  const needsQuery = mode !== 'vector';
  const needsVector = mode !== 'fullText';
  if (needsQuery && declaration.fullText === undefined) {
    throw invalid(`Search "${declaration.name}" declares no fullText, so ${mode} is not allowed.`, {
      field: 'mode',
      mode,
    });
  }
  if (needsVector && declaration.vector === undefined) {
    throw invalid(`Search "${declaration.name}" declares no vector, so ${mode} is not allowed.`, {
      field: 'mode',
      mode,
    });
  }

  let query: string | undefined;
  if (needsQuery) query = readQuery(input.query);
  else if (input.query !== undefined) throw irrelevant('query', mode);

  let vector: number[] | undefined;
  if (needsVector && declaration.vector !== undefined) {
    if (input.model === undefined) {
      throw invalid(`model is required in ${mode} mode.`, { field: 'model' });
    }
    if (input.model !== declaration.vector.model) {
      throw new PlatformError({
        code: 'SEARCH_MODEL_MISMATCH',
        message: `model ${JSON.stringify(input.model)} differs from the declared model ${JSON.stringify(declaration.vector.model)}.`,
        details: { declared: declaration.vector.model },
      });
    }
    vector = readVector(input.vector, declaration.vector.dimensions);
  } else {
    if (input.vector !== undefined) throw irrelevant('vector', mode);
    if (input.model !== undefined) throw irrelevant('model', mode);
  }

  const where = input.where === undefined ? [] : readWhere(input.where, declaration.filters);
  return { mode: mode as SearchMode, query, vector, where, limit: readLimit(input.limit) };
}

function irrelevant(field: string, mode: string): PlatformError {
  return invalid(`${field} is not allowed in ${mode} mode.`, { field, mode });
}

function readQuery(query: unknown): string {
  if (typeof query !== 'string') {
    throw invalid('query is required and must be a string.', { field: 'query' });
  }
  const trimmed = query.trim();
  if (trimmed === '') throw invalid('query must not be empty.', { field: 'query' });
  const max = limits.search.queryMaxLength;
  if (trimmed.length > max) {
    throw invalid(`query is longer than ${max} characters.`, { field: 'query', limit: max });
  }
  return trimmed;
}

function readVector(vector: unknown, dimensions: number): number[] {
  if (!Array.isArray(vector)) {
    throw invalid('vector is required and must be an array of numbers.', { field: 'vector' });
  }
  // pgvector stores float4 and sums squares in float4: the norm must be nonzero (and finite)
  // there, not only in float64, or the cosine distance is NaN.
  let norm = 0;
  for (const value of vector) {
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > FLOAT32_MAX) {
      throw invalid('vector values must be finite float32 numbers.', { field: 'vector' });
    }
    const single = Math.fround(value);
    norm = Math.fround(norm + Math.fround(single * single));
  }
  if (!(norm > 0) || !Number.isFinite(norm)) {
    throw invalid('vector must have a nonzero, finite float32 norm.', { field: 'vector' });
  }
  if (vector.length !== dimensions) {
    throw new PlatformError({
      code: 'SEARCH_DIMENSION_MISMATCH',
      message: `vector has ${vector.length} dimensions; the search declares ${dimensions}.`,
      details: { length: vector.length, declared: dimensions },
    });
  }
  return vector as number[];
}

function readWhere(
  where: unknown,
  filters: readonly string[],
): Array<readonly [string, FilterValue]> {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) {
    throw invalid('where must be an object of column equality filters.', { field: 'where' });
  }
  const out: Array<readonly [string, FilterValue]> = [];
  for (const [column, value] of Object.entries(where)) {
    if (!filters.includes(column)) {
      throw invalid(`${JSON.stringify(column)} is not a declared filter of this search.`, {
        field: 'where',
        column,
        filters: [...filters],
      });
    }
    const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
    if (!scalar || (typeof value === 'number' && !Number.isFinite(value))) {
      throw invalid(`where.${column} must be a string, number, boolean or null.`, {
        field: 'where',
        column,
      });
    }
    out.push([column, value as FilterValue]);
  }
  return out;
}

function readLimit(limit: unknown): number {
  const { limitMin, limitMax, limitDefault } = limits.search;
  if (limit === undefined) return limitDefault;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < limitMin ||
    limit > limitMax
  ) {
    throw invalid(`limit must be an integer from ${limitMin} to ${limitMax}.`, {
      field: 'limit',
      min: limitMin,
      max: limitMax,
    });
  }
  return limit;
}
