import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { SearchService } from '../../src/search/search-service.ts';
import { appWithDatabase } from '../helpers/db.ts';
import {
  categories,
  corpusMigration,
  type Doc,
  dimensions,
  docsSearch,
  generateCorpus,
  loadCorpus,
  users,
  vocabulary,
} from './corpus.ts';
import { type ReferenceHit, type ReferenceRequest, referenceSearch } from './reference.ts';

let app: Awaited<ReturnType<typeof appWithDatabase>>;
let search: SearchService;
let corpus: Doc[];

beforeAll(async () => {
  app = await appWithDatabase({ '001_docs.sql': corpusMigration }, { inMemory: true });
  search = new SearchService(app.db, [docsSearch]);
  expect(await search.prepare()).toEqual([{ name: 'docs', problem: undefined }]);
  corpus = generateCorpus(20_240_901, 600);
  await loadCorpus(app.db, corpus);
});

afterAll(async () => {
  await app?.cleanup();
});

const word = fc.constantFrom(...vocabulary, 'zulu');
const casedWord = fc.tuple(word, fc.boolean()).map(([w, upper]) => (upper ? w.toUpperCase() : w));
const queryArb = fc.oneof(
  { weight: 8, arbitrary: fc.array(casedWord, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(['!!!'], ['?? ,,']) },
);
const vectorArb = fc
  .array(fc.integer({ min: -2, max: 2 }), { minLength: dimensions, maxLength: dimensions })
  .filter((v) => v.some((x) => x !== 0));
const whereArb = fc.record(
  {
    category: fc.constantFrom<string | null>(...categories, null),
    flag: fc.constantFrom(true, false, null),
    rating: fc.constantFrom<number | null>(0, 1, 2, null),
  },
  { requiredKeys: [] },
);
const requestArb = fc.record({
  mode: fc.constantFrom('fullText', 'vector', 'hybrid'),
  words: queryArb,
  vector: vectorArb,
  where: fc.option(whereArb, { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
  user: fc.constantFrom(users.ada, users.bob),
});

type Generated = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function toRequest(g: Generated): ReferenceRequest & { model?: string } {
  const withQuery = g.mode !== 'vector';
  const withVector = g.mode !== 'fullText';
  return {
    mode: g.mode,
    ...(withQuery ? { query: ` ${g.words.join(' or ')} ` } : {}),
    ...(withVector ? { vector: g.vector, model: docsSearch.vector!.model } : {}),
    ...(g.where ? { where: g.where } : {}),
    ...(g.limit ? { limit: g.limit } : {}),
  };
}

const close = (a: number | null, b: number | null): boolean =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

function expectSameHits(actual: readonly ReferenceHit[], expected: readonly ReferenceHit[]) {
  expect(actual.map((h) => h.record)).toEqual(expected.map((h) => h.record));
  expect(actual.map((h) => [h.fullTextRank, h.vectorRank])).toEqual(
    expected.map((h) => [h.fullTextRank, h.vectorRank]),
  );
  actual.forEach((hit, i) => {
    const want = expected[i]!;
    for (const key of [
      'fullTextScore',
      'vectorDistance',
      'vectorSimilarity',
      'fusionScore',
    ] as const) {
      if (!close(hit[key], want[key])) {
        throw new Error(`hit ${i} ${key}: got ${hit[key]}, expected ${want[key]}`);
      }
    }
  });
}

describe('ranking matches the plain-TypeScript reference', () => {
  it('hit for hit, with ranks and scores, for random queries, vectors, filters and users', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (generated) => {
        const request = toRequest(generated);
        const { hits } = await search.search(userCaller(generated.user), 'docs', request);
        expectSameHits(hits, referenceSearch(corpus, generated.user, request));
      }),
      { numRuns: 250, seed: 9 },
    );
  });

  it('the corpus exercises the 100-candidate cut, ties and empty parses', async () => {
    const ada = corpus.filter((d) => d.owner === users.ada);
    // More than 100 of Ada's rows contain "alpha": the cut is reached after RLS.
    expect(ada.filter((d) => /alpha/i.test(`${d.title} ${d.body}`)).length).toBeGreaterThan(100);
    const { hits } = await search.search(userCaller(users.ada), 'docs', {
      mode: 'hybrid',
      query: '!!!',
      vector: [1, 0, 0, 0],
      model: 'test-embed@1',
      limit: 50,
    });
    // An empty parsed query gives no lexical candidates; hybrid still returns semantic ones.
    expect(hits).toHaveLength(50);
    expect(hits.every((h) => h.fullTextRank === null && h.vectorRank !== null)).toBe(true);
    expect(hits[0]!.fusionScore).toBeCloseTo(1 / 61, 12);
    const { hits: lexical } = await search.search(userCaller(users.ada), 'docs', {
      mode: 'fullText',
      query: 'alpha',
      limit: 50,
    });
    // Equal scores are ordered by id.
    const tied = lexical.filter((h) => h.fullTextScore === lexical[0]!.fullTextScore);
    const ids = tied.map((h) => h.record.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('new corpora: the reference still agrees', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 }), requestArb, async (seed, g) => {
        const fresh = generateCorpus(seed, 250);
        await loadCorpus(app.db, fresh);
        const request = toRequest(g);
        const { hits } = await search.search(userCaller(g.user), 'docs', request);
        expectSameHits(hits, referenceSearch(fresh, g.user, request));
      }),
      { numRuns: 20, seed: 90 },
    );
    await loadCorpus(app.db, corpus);
  });
});
