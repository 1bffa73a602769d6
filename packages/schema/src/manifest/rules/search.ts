import type { RuleContext } from '../context.ts';
import type { PathSegment } from '../diagnostic.ts';
import { firstDuplicates } from './duplicates.ts';

function checkUnique(
  ctx: RuleContext,
  path: readonly PathSegment[],
  columns: readonly string[],
): void {
  const seen = new Set<string>();
  columns.forEach((column, i) => {
    if (seen.has(column)) {
      ctx.report('SEARCH_COLUMN_DUPLICATE', [...path, i], `Column "${column}" is listed twice.`);
    }
    seen.add(column);
  });
}

/** Spec 2.5: named search declarations under data.search. */
export function checkSearch(ctx: RuleContext): void {
  const searches = ctx.manifest.data.search;
  for (const [i, first] of firstDuplicates(searches, (search) => search.name)) {
    ctx.report(
      'SEARCH_NAME_DUPLICATE',
      ['data', 'search', i, 'name'],
      `Search name "${searches[i]!.name}" is already used by data.search[${first}]; search names must be unique.`,
    );
  }
  for (const [i, search] of searches.entries()) {
    const at = ['data', 'search', i] as const;
    if (search.fullText === undefined && search.vector === undefined) {
      ctx.report(
        'SEARCH_MODE_MISSING',
        [...at],
        `Search "${search.name}" declares neither fullText nor vector; add fullText (columns, language) and/or vector (column, dimensions, model).`,
      );
    }
    checkUnique(ctx, [...at, 'select'], search.select);
    checkUnique(ctx, [...at, 'filters'], search.filters);
    if (search.fullText) checkUnique(ctx, [...at, 'fullText', 'columns'], search.fullText.columns);
    const vector = search.vector?.column;
    if (vector === undefined) continue;
    const filter = search.filters.indexOf(vector);
    if (filter !== -1) {
      ctx.report(
        'SEARCH_FILTER_IS_VECTOR',
        [...at, 'filters', filter],
        `"${vector}" is the vector column; filters are scalar equality filters. Remove it from filters.`,
      );
    }
    const selected = search.select.indexOf(vector);
    if (selected !== -1) {
      ctx.report(
        'SEARCH_VECTOR_COLUMN_SELECTED',
        [...at, 'select', selected],
        `The vector column "${vector}" is selected into every hit record, which counts against the 16 KiB record limit; remove it from select unless callers need it.`,
      );
    }
  }
}
