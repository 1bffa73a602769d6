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
  dimensions,
  docsSearch,
  generateCorpus,
  loadCorpus,
  users,
  vocabulary,
} from './corpus.ts';
import { referenceSearch } from './reference.ts';

// The same ranking on a real PostgreSQL. Debian 12 ships PostgreSQL but no pgvector package:
// there the embeddings are real[] and the distances are computed in SQL, with the same ranking.
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
  const report = await new SearchService(db, [docsSearch]).prepare();
  expect(report[0]!.problem).toBeUndefined();
  await loadCorpus(db, corpus);
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

  it('keeps embeddings as vector(n) with pgvector, else as real[] checked like vector(n)', async () => {
    const { rows } = await db.query<{ type: string }>(
      `select format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = 'docs'::regclass and attname = 'embedding'`,
    );
    expect(rows).toEqual([{ type: cluster.hasVector ? `vector(${dimensions})` : 'real[]' }]);
    // What vector(n) refuses, the column refuses: another length, a missing or non-finite number.
    for (const bad of ['{1,2,3}', '{1,2,3,NULL}', '{1,2,3,NaN}', '{1,2,3,Infinity}']) {
      await expect(
        db.query(
          `insert into docs (id, owner, title, embedding) values (99999, $1, 't', $2::real[])`,
          [users.ada, bad],
        ),
      ).rejects.toThrow();
    }
  });

  it('reports an embedding column of another type, naming what would fit', async () => {
    const onTitle = {
      ...docsSearch,
      name: 'titles',
      vector: { ...docsSearch.vector!, column: 'title' },
    };
    const [report] = await new SearchService(db, [onTitle]).prepare();
    expect(report!.problem).toMatch(
      cluster.hasVector
        ? /must be vector\(4\)/
        : /"docs.title" must be vector\(4\) or real\[\] of 4 numbers/,
    );
  });

  it('vector and hybrid match the reference, with RLS, for random vectors and queries', async () => {
    const search = new SearchService(db, [docsSearch]);
    const close = (a: number | null, b: number | null) =>
      a === null || b === null ? a === b : Math.abs(a - b) <= 1e-6;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('vector', 'hybrid'),
        fc
          .array(fc.integer({ min: -2, max: 2 }), { minLength: dimensions, maxLength: dimensions })
          .filter((v) => v.some((x) => x !== 0)),
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 2 }),
        fc.constantFrom(users.ada, users.bob),
        fc.option(fc.constantFrom('red', 'green', 'blue', null), { nil: undefined }),
        fc.integer({ min: 1, max: 50 }),
        async (mode, vector, words, user, category, limit) => {
          const request = {
            mode,
            vector,
            model: docsSearch.vector!.model,
            ...(mode === 'hybrid' ? { query: words.join(' or ') } : {}),
            ...(category === undefined ? {} : { where: { category } }),
            limit,
          } as const;
          const { hits } = await search.search(userCaller(user), 'docs', request);
          const expected = referenceSearch(corpus, user, request);
          expect(hits.map((h) => [h.record.id, h.vectorRank, h.fullTextRank])).toEqual(
            expected.map((h) => [h.record.id, h.vectorRank, h.fullTextRank]),
          );
          hits.forEach((h, i) => {
            const want = expected[i]!;
            expect(close(h.vectorDistance, want.vectorDistance)).toBe(true);
            expect(close(h.fusionScore, want.fusionScore)).toBe(true);
          });
        },
      ),
      { numRuns: 60, seed: 21 },
    );
  });
});
