// The server SDK (before sending) and the broker (on what it receives) check search options with
// the one validator of @platform/schema/contract, against the summaries the broker derives from
// platform.yaml: for the same options they answer the same code and field. The only rule the
// broker adds needs the database (a filter value against its column's type).
import type { SearchDeclaration } from '@platform/schema/manifest';
import { createTestContext, type TestSearch } from '@platform/server/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { sdkSearchDeclarations } from '../../src/search/search-options.ts';
import { docsSearch, users } from './corpus.ts';
import { openSearchApp, type SearchApp } from './fixture.ts';

const model = docsSearch.vector!.model;
const { fullText: _, ...vectorOnly } = { ...docsSearch, name: 'vectors' };
const declarations: SearchDeclaration[] = [
  docsSearch,
  { ...docsSearch, name: 'titles', vector: undefined } as SearchDeclaration,
  vectorOnly,
];
const ada = userCaller(users.ada);

let s: SearchApp;
beforeAll(async () => {
  s = await openSearchApp({ declarations, corpusSize: 30 });
});
afterAll(async () => {
  await s?.cleanup();
});

/** The SDK as a Function sees it, declared exactly as the broker's invocation declares it. */
function sdk() {
  const searches: Record<string, TestSearch> = {};
  for (const [name, d] of Object.entries(sdkSearchDeclarations(declarations))) {
    searches[name] = {
      fullText: d.fullText,
      ...(d.model === null ? {} : { model: d.model }),
      ...(d.dimensions === null ? {} : { dimensions: d.dimensions }),
      filters: d.filters,
      hits: [],
    };
  }
  return createTestContext({ searches }).data;
}

type Outcome = { code: string; field: unknown } | 'ok';

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    const { code, details } = error as { code: string; details?: Record<string, unknown> };
    // A filter value that does not suit its column type: the broker's one database-backed rule.
    if (details?.expected !== undefined) return 'ok';
    return { code, field: details?.field };
  }
}

async function both(name: string, options: unknown): Promise<[Outcome, Outcome]> {
  const data = sdk();
  return [
    await outcome(() => data.search(name, options as never)),
    await outcome(() => s.search.search(ada, name, options)),
  ];
}

const v = [1, 0, 0, 0];
const cases: Array<[string, string, unknown]> = [
  ['undeclared', 'nope', { mode: 'fullText', query: 'a' }],
  ['prototype key as name', 'constructor', { mode: 'fullText', query: 'a' }],
  ['options null', 'docs', null],
  ['options an array', 'docs', []],
  ['unknown option', 'docs', { mode: 'fullText', query: 'a', offset: 1 }],
  ['unknown mode', 'docs', { mode: 'fuzzy', query: 'a' }],
  ['blank query', 'docs', { mode: 'hybrid', query: '  ', vector: v, model }],
  ['query too long', 'docs', { mode: 'fullText', query: 'a'.repeat(2049) }],
  ['query in vector mode', 'docs', { mode: 'vector', query: 'a', vector: v, model }],
  ['model missing', 'docs', { mode: 'vector', vector: v }],
  ['model a number', 'docs', { mode: 'vector', vector: v, model: 1 }],
  ['wrong model', 'docs', { mode: 'vector', vector: v, model: 'x@1' }],
  ['wrong dimensions', 'docs', { mode: 'vector', vector: [1, 0], model }],
  ['zero in float32 only', 'docs', { mode: 'vector', vector: [1e-30, 0, 0, 0], model }],
  ['float32 overflow', 'docs', { mode: 'vector', vector: [1e39, 0, 0, 0], model }],
  ['model in fullText mode', 'docs', { mode: 'fullText', query: 'a', model }],
  ['undeclared filter', 'docs', { mode: 'fullText', query: 'a', where: { owner: 'x' } }],
  ['object filter value', 'docs', { mode: 'fullText', query: 'a', where: { flag: {} } }],
  ['limit 51', 'docs', { mode: 'fullText', query: 'a', limit: 51 }],
  ['limit 0', 'docs', { mode: 'fullText', query: 'a', limit: 0 }],
  // Where the two used to disagree: a mode the declaration does not enable.
  ['vector mode without a vector', 'titles', { mode: 'vector', vector: v, model }],
  ['vector mode without a vector or model', 'titles', { mode: 'vector', vector: v }],
  ['hybrid mode without a vector', 'titles', { mode: 'hybrid', query: 'a', vector: v, model }],
  ['fullText mode without fullText', 'vectors', { mode: 'fullText', query: 'a' }],
  ['hybrid mode without fullText', 'vectors', { mode: 'hybrid', query: 'a', vector: v, model }],
  ['valid hybrid', 'docs', { mode: 'hybrid', query: 'a', vector: v, model, limit: 1 }],
];

describe('the SDK and the broker agree on search options', () => {
  it.each(cases)('%s', async (_label, name, options) => {
    const [fromSdk, fromBroker] = await both(name, options);
    expect(fromSdk).toEqual(fromBroker);
  });

  it('a mode the declaration does not enable is SEARCH_INPUT_INVALID on mode, on both sides', async () => {
    expect(await both('titles', { mode: 'vector', vector: v, model })).toEqual([
      { code: 'SEARCH_INPUT_INVALID', field: 'mode' },
      { code: 'SEARCH_INPUT_INVALID', field: 'mode' },
    ]);
  });

  it('for any options (property-based)', async () => {
    const number = fc.oneof(
      fc.double({ noNaN: false }),
      fc.constantFrom(0, 1, -1, 1e-30, 1e-46, 1e39, Number.POSITIVE_INFINITY),
    );
    const options = fc.record(
      {
        mode: fc.constantFrom('fullText', 'vector', 'hybrid', 'fuzzy', 3),
        query: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('  ', 'a'.repeat(2049), 7)),
        vector: fc.oneof(
          fc.array(number, { maxLength: 5 }),
          fc.constant(v),
          fc.constant('1,0,0,0'),
        ),
        model: fc.constantFrom(model, 'other@1', ` ${model}`, 1, null),
        where: fc.oneof(
          fc.dictionary(
            fc.constantFrom('category', 'flag', 'rating', 'owner'),
            fc.oneof(fc.string({ maxLength: 3 }), fc.boolean(), fc.integer(), fc.constant(null)),
          ),
          fc.constantFrom([], null, { rating: 1.5 }, { flag: [true] }, { rating: Number.NaN }),
        ),
        limit: fc.oneof(fc.integer({ min: -1, max: 52 }), fc.constantFrom(1.5, '10', null)),
        offset: fc.constant(1),
      },
      { requiredKeys: [] },
    );
    const name = fc.constantFrom('docs', 'titles', 'vectors', 'nope', 'constructor');
    await fc.assert(
      fc.asyncProperty(name, options, async (n, o) => {
        const [fromSdk, fromBroker] = await both(n, o);
        expect(fromSdk).toEqual(fromBroker);
      }),
      { numRuns: 300 },
    );
  });
});
