import type { SearchDeclaration } from '@platform/schema/manifest';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { SearchService } from './search-service.ts';

/**
 * The declared searches of `data.search` (docs/search.md); `undefined` when platform.yaml
 * declares none. Their database objects are made at start.
 */
export function searchFeature(
  searches: readonly SearchDeclaration[],
): BrokerFeature<'search', object, SearchService | undefined> {
  return {
    name: 'search',
    start: async (base) => {
      const search = searches.length > 0 ? new SearchService(base.db, searches) : undefined;
      await prepareSearches(search, base.print);
      return search;
    },
  };
}

/**
 * Prepares every declared search (after a start, or after migrations ran again with
 * {@link SearchService.invalidate} first) and prints a warning for each that does not fit: a
 * declaration that does not fit the database yet is prepared again on its first call.
 */
export async function prepareSearches(
  search: SearchService | undefined,
  print: LogWriter,
): Promise<void> {
  for (const { name, problem } of (await search?.prepare()) ?? []) {
    if (problem) print(`WARN  search ${name}: ${problem}`);
  }
}
