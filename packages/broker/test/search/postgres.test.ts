import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { SearchService } from '../../src/search/search-service.ts';
import { openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import {
  corpusMigration,
  type Doc,
  docsSearch,
  generateCorpus,
  users,
  vocabulary,
} from './corpus.ts';
import { referenceSearch } from './reference.ts';

// The same ranking on a real PostgreSQL. Debian 12 ships PostgreSQL but no pgvector package,
// so without pgvector the vector and hybrid modes are checked to fail clearly instead.
let cluster: PostgresServer;
let db: Database;
let removeDir: () => Promise<void>;
let corpus: Doc[];

beforeAll(async () => {
  cluster = await startPostgres();
  const dir = await tempDir('search-pg-app-');
  removeDir = dir.remove;
  ({ db } = await openPostgres(cluster.url, dir.path));
  await db.exec(corpusMigration);
  corpus = generateCorpus(11, 400);
  const withoutVector = cluster.hasVector ? docsSearch : { ...docsSearch, vector: undefined };
  const report = await new SearchService(db, [withoutVector]).prepare();
  expect(report[0]!.problem).toBeUndefined();
  for (const doc of corpus) {
    await db.query(
      'insert into docs (id, owner, title, body, category, flag, rating) values ($1, $2, $3, $4, $5, $6, $7)',
      [doc.id, doc.owner, doc.title, doc.body, doc.category, doc.flag, doc.rating],
    );
  }
}, 60_000);

afterAll(async () => {
  await db?.close();
  await cluster?.stop();
  await removeDir?.();
});

describe('search on PostgreSQL', () => {
  it('fullText matches the reference, with RLS, for random queries', async () => {
    const search = new SearchService(db, [{ ...docsSearch, vector: undefined }]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(users.ada, users.bob),
        fc.integer({ min: 1, max: 50 }),
        async (words, user, limit) => {
          const request = { mode: 'fullText', query: words.join(' or '), limit } as const;
          const { hits } = await search.search(userCaller(user), 'docs', request);
          const expected = referenceSearch(corpus, user, request);
          expect(hits.map((h) => [h.record.id, h.fullTextRank])).toEqual(
            expected.map((h) => [h.record.id, h.fullTextRank]),
          );
          hits.forEach((h, i) => {
            expect(h.fullTextScore).toBeCloseTo(expected[i]!.fullTextScore!, 6);
          });
        },
      ),
      { numRuns: 40, seed: 15 },
    );
  });

  it('vector search needs pgvector: clear SEARCH_UNAVAILABLE when the server lacks it', async () => {
    const search = new SearchService(db, [docsSearch]);
    if (cluster.hasVector) {
      const request = { mode: 'vector', vector: [1, 0, 2, 0], model: 'test-embed@1' } as const;
      await expect(search.search(userCaller(users.ada), 'docs', request)).resolves.toBeDefined();
      return;
    }
    const [report] = await search.prepare();
    expect(report!.problem).toMatch(/pgvector extension is not installed/);
  });
});
