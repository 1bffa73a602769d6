// Search in the example app end to end: the page's SDK (Node) calls the `searchTodos` Function,
// which calls `ctx.data.search('todos', ...)` in its Deno process, which the broker answers under
// the caller's RLS. Checks ranking against PostgreSQL's own ts_rank_cd, RLS, the `done` filter,
// an input error reaching the browser, and that the browser SDK itself has no search.
import { createPlatform, isPlatformError, type Platform } from '@platform/browser';
import { limits } from '@platform/schema';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { ada, bob, copyExample, devFor, fetchAs } from './helpers.ts';

interface Todo {
  id: string;
  title: string;
  notes: string;
  done: boolean;
}

interface Hit {
  record: Record<string, unknown>;
  fullTextScore: number | null;
  fullTextRank: number | null;
  vectorDistance: number | null;
  vectorSimilarity: number | null;
  vectorRank: number | null;
  fusionScore: number | null;
}

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
/** Ada's and Bob's todos by a short name. */
const todos = new Map<string, Todo>();

const sdkAs = (user?: string) => createPlatform({ appUrl: dev.url, fetch: fetchAs(user) });

async function search(user: string | undefined, input: Record<string, unknown>): Promise<Hit[]> {
  const { hits } = (await sdkAs(user).functions.call('searchTodos', input)) as { hits: Hit[] };
  return hits;
}

const failure = (user: string | undefined, input: Record<string, unknown>) =>
  search(user, input).then(
    () => expect.unreachable('the search should have failed'),
    (error: unknown) => error,
  );

const titles = (hits: readonly Hit[]) => hits.map((hit) => hit.record.title);

beforeAll(async () => {
  app = await copyExample();
  ({ dev } = await devFor(app.path, { watch: false }));
  const create = async (key: string, user: string, title: string, notes = '') => {
    const todo = (await sdkAs(user).functions.call('createTodo', { title, notes })) as Todo;
    todos.set(key, todo);
  };
  await create('oat', ada, 'Buy milk', 'Whole milk, and oat milk for the coffee');
  await create('goats', ada, 'Milking the goats');
  await create('jug', ada, 'Milk jug');
  await create('plumber', ada, 'Call the plumber', 'The kitchen sink leaks');
  // Bob's todo matches "milk" better than any of Ada's.
  await create('bob', bob, 'Milk run', 'milk milk milk milk for the milk bar');
  await sdkAs(ada).functions.call('toggleTodo', { id: todos.get('goats')!.id });
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

/** PostgreSQL's own ranking of Ada's todos, as the owner: the expected scores and order. */
async function expected(query: string): Promise<{ id: string; score: number }[]> {
  const { rows } = await dev.broker.db.query<{ id: string; score: number }>(
    `select id::text, ts_rank_cd(d, q) as score
       from todos,
            to_tsvector('english'::regconfig, coalesce(title, '') || ' ' || coalesce(notes, '')) d,
            websearch_to_tsquery('english'::regconfig, $1) q
      where owner_id = $2 and d @@ q
      order by score desc, id asc`,
    [query, ada],
  );
  return rows;
}

describe('searchTodos: full-text search from a Function', () => {
  it('ranks hits by ts_rank_cd, ties by id, with one-based ranks and only fullText evidence', async () => {
    const hits = await search(ada, { query: 'milk' });
    const want = await expected('milk');
    // English stemming: "Milking" matches "milk"; the plumber does not match at all.
    expect(want).toHaveLength(3);
    expect(hits.map((hit) => hit.record.id)).toEqual(want.map((row) => row.id));
    // Three occurrences outrank one; "Milking the goats" and "Milk jug" tie and go by id.
    expect(titles(hits)[0]).toBe('Buy milk');
    const [goats, jug] = [todos.get('goats')!.id, todos.get('jug')!.id];
    expect(hits.slice(1).map((hit) => hit.record.id)).toEqual([goats, jug].sort());
    hits.forEach((hit, i) => {
      expect(hit.fullTextRank).toBe(i + 1);
      expect(hit.fullTextScore).toBeCloseTo(want[i]!.score, 6);
      expect(hit).toMatchObject({
        vectorDistance: null,
        vectorSimilarity: null,
        vectorRank: null,
        fusionScore: null,
      });
    });
    expect(hits[0]!.fullTextScore!).toBeGreaterThan(hits[1]!.fullTextScore!);
    expect(hits[1]!.fullTextScore).toBe(hits[2]!.fullTextScore);
    // A hit's record carries exactly the declared select columns (no owner_id, no attachment).
    expect(Object.keys(hits[0]!.record).sort()).toEqual([
      'created_at',
      'done',
      'id',
      'notes',
      'title',
    ]);
  });

  it('understands web search syntax and honours limit', async () => {
    expect(titles(await search(ada, { query: '"oat milk"' }))).toEqual(['Buy milk']);
    const notOat = await search(ada, { query: 'milk -oat' });
    expect(notOat.map((hit) => hit.record.id)).toEqual(
      (await expected('milk -oat')).map((r) => r.id),
    );
    expect(titles(notOat)).not.toContain('Buy milk');
    expect(titles(await search(ada, { query: 'plumber or coffee' })).sort()).toEqual([
      'Buy milk',
      'Call the plumber',
    ]);
    const one = await search(ada, { query: 'milk', limit: 1 });
    expect(titles(one)).toEqual(['Buy milk']);
    // Only stop words: the query parses to nothing, so there are no hits (not an error).
    expect(await search(ada, { query: 'the and of' })).toEqual([]);
  });

  it('applies RLS: a user never finds another user’s todos', async () => {
    const bobs = todos.get('bob')!.id;
    for (const query of ['milk', 'milk bar', 'run', 'milk or sink or goats']) {
      const hits = await search(ada, { query, limit: 50 });
      expect(hits.map((hit) => hit.record.id)).not.toContain(bobs);
    }
    expect(await search(ada, { query: 'milk bar' })).toEqual([]);
    // Bob's best match is his own, ranked first among his rows only.
    const asBob = await search(bob, { query: 'milk', limit: 50 });
    expect(asBob.map((hit) => hit.record.id)).toEqual([bobs]);
    expect(asBob[0]).toMatchObject({ fullTextRank: 1 });
    // Signed out, the user Function is refused before any search runs.
    expect(isPlatformError(await failure(undefined, { query: 'milk' }), 'AUTH_REQUIRED')).toBe(
      true,
    );
  });

  it('filters on done; null means IS NULL (done is NOT NULL, so nothing matches)', async () => {
    expect(titles(await search(ada, { query: 'milk', done: true }))).toEqual(['Milking the goats']);
    const open = await search(ada, { query: 'milk', done: false });
    expect(titles(open)).toEqual(['Buy milk', 'Milk jug']);
    // Ranks are computed after the filter: the open "Milk jug" is second, not third.
    expect(open.map((hit) => hit.fullTextRank)).toEqual([1, 2]);
    expect(await search(ada, { query: 'milk', done: null })).toEqual([]);
  });

  it('reports SEARCH_INPUT_INVALID to the browser as a PlatformError', async () => {
    const max = limits.search.queryMaxLength;
    const long = await failure(ada, { query: 'milk '.repeat(max).slice(0, max + 1) });
    expect(isPlatformError(long, 'SEARCH_INPUT_INVALID')).toBe(true);
    expect(long).toMatchObject({ status: 400, details: { field: 'query', limit: max } });
    // The limit applies to the trimmed query: exactly the maximum, padded with spaces, runs.
    const some = `milk${' or milk'.repeat(Math.floor((max - 10) / 8))} or `;
    const words = some + 'z'.repeat(max - some.length);
    expect(words).toHaveLength(max);
    const atMax = `  ${words}  `;
    expect((await search(ada, { query: atMax })).length).toBeGreaterThan(0);
    const blank = await failure(ada, { query: '   ' });
    expect(blank).toMatchObject({ code: 'SEARCH_INPUT_INVALID', details: { field: 'query' } });
    const limit = await failure(ada, { query: 'milk', limit: limits.search.limitMax + 1 });
    expect(limit).toMatchObject({ code: 'SEARCH_INPUT_INVALID', details: { field: 'limit' } });
  });
});

describe('the page’s search box (Chromium)', () => {
  it('shows the signed-in user’s hits best first, and input errors in the status line', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setExtraHTTPHeaders({ 'x-test-user': ada });
      await page.goto(dev.url);
      await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
      await page.fill('#search-query', 'milk');
      await page.selectOption('#search-done', 'false');
      await page.click('#search button');
      const results = page.locator('#search-results li');
      await expect
        .poll(() => results.allTextContents())
        .toEqual(['Buy milk (Whole milk, and oat milk for the coffee)', 'Milk jug']);
      await page.fill('#search-query', 'x'.repeat(limits.search.queryMaxLength + 1));
      await page.click('#search button');
      await expect
        .poll(() => page.locator('#status').textContent())
        .toMatch(/^SEARCH_INPUT_INVALID: /);
      expect(await results.count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});

describe('the browser SDK', () => {
  it('has no search method: search runs only in Functions', () => {
    const platform = sdkAs(ada);
    expect(Object.keys(platform).sort()).toEqual(['auth', 'functions']);
    expect(Object.keys(platform.functions).sort()).toEqual(['call', 'stream']);
    expect('search' in platform).toBe(false);
    expect('search' in platform.functions).toBe(false);
    expectTypeOf<keyof Platform>().toEqualTypeOf<'auth' | 'functions'>();
    expectTypeOf<keyof Platform['functions']>().toEqualTypeOf<'call' | 'stream'>();
    // @ts-expect-error: no `search` on the browser SDK (tsc fails here if one is added).
    expect(platform.search).toBeUndefined();
    // @ts-expect-error: nor on `platform.functions`.
    expect(platform.functions.search).toBeUndefined();
  });
});
