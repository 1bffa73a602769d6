import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Declarations } from '@platform/schema/contract';
import type { SearchOptions } from './types.ts';

const MODES = ['fullText', 'vector', 'hybrid'] as const;
const KNOWN = new Set(['mode', 'query', 'vector', 'model', 'where', 'limit']);
const FLOAT32_MAX = 3.4028234663852886e38;

function invalid(message: string, details: JsonObject = {}): PlatformError {
  return new PlatformError({ code: 'SEARCH_INPUT_INVALID', message, details });
}

/**
 * Checks `data.search` options against spec 2.5 and the search's declaration before any request,
 * and returns the body to send (the query trimmed, `limit` defaulted).
 */
export function checkSearch(
  name: string,
  options: SearchOptions,
  declared: Declarations['searches'],
): SearchOptions {
  const declaration = Object.hasOwn(declared, name) ? declared[name] : undefined;
  if (declaration === undefined) {
    throw new PlatformError({
      code: 'SEARCH_NOT_DECLARED',
      message: `No search named ${JSON.stringify(name)} is declared under data.search in platform.yaml.`,
      details: { name },
    });
  }
  if (typeof options !== 'object' || options === null)
    throw invalid('Search options must be an object.');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      throw invalid(`Unknown search option ${JSON.stringify(key)}.`, { field: key });
  }
  const { mode } = options;
  if (!MODES.includes(mode)) {
    throw invalid(`mode must be one of ${MODES.join(', ')}.`, { field: 'mode' });
  }
  const needsQuery = mode !== 'vector';
  const needsVector = mode !== 'fullText';
  const out: { -readonly [K in keyof SearchOptions]: SearchOptions[K] } = { mode };

  if (needsQuery) out.query = checkQuery(options.query);
  else if (options.query !== undefined) throw irrelevant('query', mode);

  if (needsVector) {
    if (options.model === undefined)
      throw invalid(`model is required in ${mode} mode.`, { field: 'model' });
    if (options.model !== declaration.model) {
      throw new PlatformError({
        code: 'SEARCH_MODEL_MISMATCH',
        message: `model ${JSON.stringify(options.model)} differs from the declared model ${JSON.stringify(declaration.model)}.`,
        details: { model: options.model, declared: declaration.model },
      });
    }
    out.vector = checkVector(options.vector, declaration.dimensions);
    out.model = options.model;
  } else {
    if (options.vector !== undefined) throw irrelevant('vector', mode);
    if (options.model !== undefined) throw irrelevant('model', mode);
  }

  if (options.where !== undefined) out.where = checkWhere(options.where, declaration.filters);
  out.limit = checkLimit(options.limit);
  return out;
}

function irrelevant(field: string, mode: string): PlatformError {
  return invalid(`${field} is not allowed in ${mode} mode.`, { field, mode });
}

function checkQuery(query: unknown): string {
  if (typeof query !== 'string')
    throw invalid('query is required and must be a string.', { field: 'query' });
  const trimmed = query.trim();
  if (trimmed === '') throw invalid('query must not be empty.', { field: 'query' });
  const max = limits.search.queryMaxLength;
  if (trimmed.length > max) {
    throw invalid(`query is longer than ${max} characters.`, { field: 'query', limit: max });
  }
  return trimmed;
}

function checkVector(vector: unknown, dimensions: number | null): number[] {
  if (!Array.isArray(vector))
    throw invalid('vector is required and must be an array of numbers.', { field: 'vector' });
  let norm = 0;
  for (const value of vector) {
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > FLOAT32_MAX) {
      throw invalid('vector values must be finite float32 numbers.', { field: 'vector' });
    }
    norm += value * value;
  }
  if (norm === 0) throw invalid('vector must have a nonzero norm.', { field: 'vector' });
  if (vector.length !== dimensions) {
    throw new PlatformError({
      code: 'SEARCH_DIMENSION_MISMATCH',
      message: `vector has ${vector.length} dimensions; the search declares ${String(dimensions)}.`,
      details: { length: vector.length, declared: dimensions },
    });
  }
  return vector as number[];
}

function checkWhere(
  where: unknown,
  filters: readonly string[],
): Record<string, string | number | boolean | null> {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) {
    throw invalid('where must be an object of column equality filters.', { field: 'where' });
  }
  for (const [column, value] of Object.entries(where)) {
    if (!filters.includes(column)) {
      throw invalid(`${JSON.stringify(column)} is not a declared filter of this search.`, {
        field: 'where',
        column,
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
  return where as Record<string, string | number | boolean | null>;
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
