import {
  checkSearchOptions,
  type Declarations,
  type SearchFilterValue,
  type SearchMode,
  type SearchSummary,
} from '@platform/schema/contract';
import type { SearchDeclaration } from '@platform/schema/manifest';

export type { SearchMode };

/** An equality filter value; `null` means `IS NULL`. */
export type FilterValue = SearchFilterValue;

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

/**
 * What the option rules need of one declaration: whether it declares full text, its vector's
 * model and dimensions (`null` without a vector), its filter columns.
 */
export function searchSummary(declaration: SearchDeclaration): SearchSummary {
  return {
    fullText: declaration.fullText !== undefined,
    model: declaration.vector?.model ?? null,
    dimensions: declaration.vector?.dimensions ?? null,
    filters: [...declaration.filters],
  };
}

/**
 * The summaries of every declared search, by name: what the broker checks options against and
 * what the invocation's `declared.searches` carries to the SDK, which checks the same options
 * with the same rules before sending.
 */
export function sdkSearchDeclarations(
  declarations: readonly SearchDeclaration[],
): Declarations['searches'] {
  const out: Declarations['searches'] = {};
  for (const declaration of declarations) out[declaration.name] = searchSummary(declaration);
  return out;
}

/**
 * Checks the options of search `name` against spec 2.5. The broker never trusts the SDK's own
 * checks (a Function can call the route directly), so it runs the same validator
 * (`checkSearchOptions` of `@platform/schema/contract`) again: both report the same code for the
 * same input. Filter values against column types need the database and are checked later.
 *
 * @example
 * ```ts
 * const request = readSearchOptions(sdkSearchDeclarations(declarations), 'notes', {
 *   mode: 'fullText',
 *   query: ' tea ',
 * });
 * request.query; // 'tea'
 * ```
 */
export function readSearchOptions(
  searches: Declarations['searches'],
  name: string,
  options: unknown,
): SearchRequest {
  const checked = checkSearchOptions(name, searches, options);
  return {
    mode: checked.mode,
    query: checked.query,
    vector: checked.vector,
    where: Object.entries(checked.where ?? {}),
    limit: checked.limit,
  };
}
