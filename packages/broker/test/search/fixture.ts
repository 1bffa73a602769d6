import type { SearchDeclaration } from '@platform/schema/manifest';
import { expect } from 'vitest';
import { SearchService, type SearchServiceOptions } from '../../src/search/search-service.ts';
import { appWithDatabase } from '../helpers/db.ts';
import { corpusMigration, type Doc, docsSearch, generateCorpus, loadCorpus } from './corpus.ts';

/** An in-memory app database with the corpus table, extra migrations and a search service. */
export interface SearchApp {
  readonly app: Awaited<ReturnType<typeof appWithDatabase>>;
  readonly search: SearchService;
  readonly corpus: Doc[];
  cleanup(): Promise<void>;
}

/** Opens a search app; `corpusSize` rows are generated from a fixed seed and loaded. */
export async function openSearchApp(
  options: {
    migrations?: Record<string, string>;
    declarations?: SearchDeclaration[];
    corpusSize?: number;
    service?: SearchServiceOptions;
  } = {},
): Promise<SearchApp> {
  const app = await appWithDatabase(
    { '001_docs.sql': corpusMigration, ...options.migrations },
    { inMemory: true },
  );
  const declarations = options.declarations ?? [docsSearch];
  const search = new SearchService(app.db, declarations, options.service);
  const report = await search.prepare();
  expect(report.filter((r) => r.problem !== undefined)).toEqual([]);
  const corpus = generateCorpus(7, options.corpusSize ?? 120);
  await loadCorpus(app.db, corpus);
  return { app, search, corpus, cleanup: () => app.cleanup() };
}

/** Runs `fn` and returns the `PlatformError`-like value it throws (fails when it resolves). */
export async function failure(
  fn: () => Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await fn();
  } catch (error) {
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('Expected the call to fail');
}
