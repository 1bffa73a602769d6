import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '../limits.ts';
import type { Declarations } from './invocation.ts';

/** A search mode of spec 2.5. */
export type SearchMode = 'fullText' | 'vector' | 'hybrid';

/** An equality filter value; `null` means `IS NULL`. */
export type SearchFilterValue = string | number | boolean | null;

/** What a declared search says about its options (`declared.searches[name]` of the invocation). */
export type SearchSummary = Declarations['searches'][string];

/** Search options that passed every rule of spec 2.5 that needs no database. */
export interface CheckedSearchOptions {
  readonly mode: SearchMode;
  /** The trimmed query (`fullText` and `hybrid`). */
  readonly query?: string;
  /** The query vector (`vector` and `hybrid`): finite float32 values with a nonzero norm. */
  readonly vector?: number[];
  /** The declared model identity (`vector` and `hybrid`). */
  readonly model?: string;
  /** Declared filter columns and scalar values, as given. */
  readonly where?: Record<string, SearchFilterValue>;
  /** 1 to `limits.search.limitMax`; `limits.search.limitDefault` when omitted. */
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
 * Checks the options of `data.search(name, options)` against spec 2.5 and the declaration
 * summary, and returns them normalised (query trimmed, `limit` defaulted). The one
 * implementation of these rules: the server SDK runs it before sending, the broker runs it again
 * on what it receives (a Function can call the route directly), so both answer the same code for
 * the same options. Only what needs the database (a filter value against its column's type) is
 * left to the broker.
 *
 * Throws a `PlatformError`: `SEARCH_NOT_DECLARED`, `SEARCH_INPUT_INVALID` (with `details.field`
 * naming the offending option), `SEARCH_MODEL_MISMATCH` or `SEARCH_DIMENSION_MISMATCH`. A mode
 * the declaration does not enable (`vector` without a declared vector, `fullText` without
 * declared full text) is `SEARCH_INPUT_INVALID` on `mode`, whatever the other options say.
 *
 * @example
 * ```ts
 * const searches = { notes: { fullText: true, model: null, dimensions: null, filters: [] } };
 * checkSearchOptions('notes', searches, { mode: 'fullText', query: ' tea ' });
 * // { mode: 'fullText', query: 'tea', limit: 10 }
 * ```
 */
export function checkSearchOptions(
  name: string,
  searches: Readonly<Record<string, SearchSummary>>,
  options: unknown,
): CheckedSearchOptions {
  const declaration = Object.hasOwn(searches, name) ? searches[name] : undefined;
  if (declaration === undefined) {
    throw new PlatformError({
      code: 'SEARCH_NOT_DECLARED',
      message: `No search named ${JSON.stringify(name)} is declared under data.search in platform.yaml.`,
      details: { name },
    });
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalid('Search options must be an object.');
  }
  const input = options as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) {
      throw invalid(`Unknown search option ${JSON.stringify(key)}.`, { field: key });
    }
  }
  const mode = input.mode as SearchMode;
  if (!MODES.includes(mode)) {
    throw invalid(`mode must be one of ${MODES.join(', ')}.`, { field: 'mode' });
  }
  const needsQuery = mode !== 'vector';
  const needsVector = mode !== 'fullText';
  // The mode comes first: no model or vector can make a search without a vector run in vector
  // mode, so a model "mismatch" against nothing would send the caller looking for the wrong fix.
  if (needsQuery && !declaration.fullText) {
    throw invalid(
      `Search ${JSON.stringify(name)} declares no fullText, so ${mode} is not allowed.`,
      {
        field: 'mode',
        mode,
      },
    );
  }
  const { model, dimensions } = declaration;
  const vectorOf = model !== null && dimensions !== null ? { model, dimensions } : undefined;
  if (needsVector && vectorOf === undefined) {
    throw invalid(`Search ${JSON.stringify(name)} declares no vector, so ${mode} is not allowed.`, {
      field: 'mode',
      mode,
    });
  }

  const out: { -readonly [K in keyof CheckedSearchOptions]: CheckedSearchOptions[K] } = {
    mode,
    limit: limits.search.limitDefault,
  };
  if (needsQuery) out.query = checkQuery(input.query);
  else if (input.query !== undefined) throw irrelevant('query', mode);

  if (vectorOf !== undefined && needsVector) {
    if (input.model === undefined) {
      throw invalid(`model is required in ${mode} mode.`, { field: 'model' });
    }
    if (input.model !== vectorOf.model) {
      throw new PlatformError({
        code: 'SEARCH_MODEL_MISMATCH',
        message: `model ${JSON.stringify(input.model)} differs from the declared model ${JSON.stringify(vectorOf.model)}.`,
        details: {
          ...(typeof input.model === 'string' ? { model: input.model } : {}),
          declared: vectorOf.model,
        },
      });
    }
    out.vector = checkVector(input.vector, vectorOf.dimensions);
    out.model = vectorOf.model;
  } else {
    if (input.vector !== undefined) throw irrelevant('vector', mode);
    if (input.model !== undefined) throw irrelevant('model', mode);
  }

  if (input.where !== undefined) out.where = checkWhere(input.where, declaration.filters);
  out.limit = checkLimit(input.limit);
  return out;
}

function irrelevant(field: string, mode: string): PlatformError {
  return invalid(`${field} is not allowed in ${mode} mode.`, { field, mode });
}

function checkQuery(query: unknown): string {
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

function checkVector(vector: unknown, dimensions: number): number[] {
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
  return [...(vector as number[])];
}

function checkWhere(where: unknown, filters: readonly string[]): Record<string, SearchFilterValue> {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) {
    throw invalid('where must be an object of column equality filters.', { field: 'where' });
  }
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
  }
  return where as Record<string, SearchFilterValue>;
}

function checkLimit(limit: unknown): number {
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
