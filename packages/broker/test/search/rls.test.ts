import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { type Doc, loadCorpus, users } from './corpus.ts';
import { openSearchApp, type SearchApp } from './fixture.ts';

let s: SearchApp;
let corpus: Doc[];

// Bob has 150 rows that beat every one of Ada's on both components; Ada has 20 weaker rows.
function rivals(): Doc[] {
  const docs: Doc[] = [];
  for (let i = 1; i <= 170; i++) {
    const bob = i <= 150;
    docs.push({
      id: i,
      owner: bob ? users.bob : users.ada,
      title: bob ? 'alpha alpha alpha secret' : 'alpha',
      body: null,
      category: bob ? 'red' : (['red', null][i % 2] ?? null),
      flag: null,
      rating: null,
      embedding: bob ? [1, 0, 0, 0] : [1, 1, 1, i % 3],
    });
  }
  return docs;
}

beforeAll(async () => {
  s = await openSearchApp({ corpusSize: 0 });
  corpus = rivals();
  await loadCorpus(s.app.db, corpus);
});

afterAll(async () => {
  await s?.cleanup();
});

const options = {
  mode: 'hybrid',
  query: 'alpha',
  vector: [1, 0, 0, 0],
  model: 'test-embed@1',
  limit: 50,
} as const;

describe('row-level security', () => {
  it("a user never sees another user's rows, in any mode", async () => {
    const adaIds = new Set(corpus.filter((d) => d.owner === users.ada).map((d) => d.id));
    for (const mode of ['fullText', 'vector', 'hybrid'] as const) {
      const request =
        mode === 'fullText'
          ? { mode, query: 'alpha or secret', limit: 50 }
          : mode === 'vector'
            ? { mode, vector: options.vector, model: options.model, limit: 50 }
            : options;
      const { hits } = await s.search.search(userCaller(users.ada), 'docs', request);
      expect(hits.length).toBe(20);
      expect(hits.every((h) => adaIds.has(h.record.id as number))).toBe(true);
    }
    const secret = await s.search.search(userCaller(users.ada), 'docs', {
      mode: 'fullText',
      query: 'secret',
    });
    expect(secret.hits).toEqual([]);
  });

  it('candidates and ranks are counted after RLS (and after filters)', async () => {
    // Were the 100-candidate cut taken before RLS, Bob's 150 rows would fill it and Ada would
    // get nothing.
    const { hits } = await s.search.search(userCaller(users.ada), 'docs', options);
    expect(hits.map((h) => h.fullTextRank).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(hits.map((h) => h.vectorRank).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const filtered = await s.search.search(userCaller(users.ada), 'docs', {
      ...options,
      where: { category: null },
    });
    expect(filtered.hits).toHaveLength(10);
    expect(filtered.hits.every((h) => h.record.category === null)).toBe(true);
    expect(Math.max(...filtered.hits.map((h) => h.fullTextRank!))).toBe(10);
  });

  it('Bob sees at most 100 candidates per component of his own 150', async () => {
    const { hits } = await s.search.search(userCaller(users.bob), 'docs', options);
    expect(hits).toHaveLength(50);
    // All of Bob's rows tie on both components: ranks follow ids, fusion is 2 / (60 + rank).
    expect(hits.map((h) => h.record.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    hits.forEach((h, i) => {
      expect(h.fullTextRank).toBe(i + 1);
      expect(h.fusionScore).toBeCloseTo(2 / (61 + i), 12);
    });
  });

  it('anonymous callers see no rows; a system policy can see them all', async () => {
    const anonymous = await s.search.search(anonymousCaller, 'docs', options);
    expect(anonymous.hits).toEqual([]);
    const system = await s.search.search(systemCaller(), 'docs', options);
    expect(system.hits).toHaveLength(50);
  });
});
