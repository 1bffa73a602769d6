import { isPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { SearchDeclaration } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { SearchService } from '../../src/search/search-service.ts';
import { users } from './corpus.ts';
import { failure, openSearchApp, type SearchApp } from './fixture.ts';

const ada = userCaller(users.ada);
const model = 'test-embed@1';
const textOnly: SearchDeclaration = {
  name: 'titles',
  table: 'docs',
  select: ['id'],
  fullText: { columns: ['title'], language: 'simple' },
  filters: [],
};
const big: SearchDeclaration = {
  name: 'big',
  table: 'big',
  select: ['id', 'payload'],
  fullText: { columns: ['payload'], language: 'simple' },
  filters: [],
};
const bigMigration = `
create table big (id integer primary key, payload text not null);
`;

let s: SearchApp;

beforeAll(async () => {
  const { docsSearch } = await import('./corpus.ts');
  s = await openSearchApp({
    migrations: { '002_big.sql': bigMigration },
    declarations: [docsSearch, textOnly, big],
  });
});

afterAll(async () => {
  await s?.cleanup();
});

const run = (options: unknown, name = 'docs') => s.search.search(ada, name, options);
const code = async (options: unknown, name = 'docs') =>
  (await failure(() => run(options, name))).code;

describe('SEARCH_NOT_DECLARED', () => {
  it('an undeclared name, including prototype keys', async () => {
    const error = await failure(() => run({ mode: 'fullText', query: 'a' }, 'nope'));
    expect(isPlatformError(error)).toBe(true);
    expect(error.code).toBe('SEARCH_NOT_DECLARED');
    expect(await code({ mode: 'fullText', query: 'a' }, 'constructor')).toBe('SEARCH_NOT_DECLARED');
  });
});

describe('SEARCH_INPUT_INVALID', () => {
  const v = [1, 0, 0, 0];
  it.each([
    ['options not an object', null],
    ['options an array', []],
    ['unknown field', { mode: 'fullText', query: 'a', offset: 3 }],
    ['unknown mode', { mode: 'semantic', query: 'a' }],
    ['missing mode', { query: 'a' }],
    ['query missing', { mode: 'fullText' }],
    ['query not a string', { mode: 'fullText', query: 3 }],
    ['query blank after trim', { mode: 'hybrid', query: ' \n\t ', vector: v, model }],
    ['query over 2,048 characters', { mode: 'fullText', query: 'a'.repeat(2049) }],
    ['query in vector mode', { mode: 'vector', query: 'a', vector: v, model }],
    ['vector in fullText mode', { mode: 'fullText', query: 'a', vector: v }],
    ['model in fullText mode', { mode: 'fullText', query: 'a', model }],
    ['model missing with a vector', { mode: 'vector', vector: v }],
    ['vector missing', { mode: 'vector', model }],
    ['vector not an array', { mode: 'vector', vector: '1,0,0,0', model }],
    ['vector with a string', { mode: 'vector', vector: [1, '0', 0, 0], model }],
    ['vector with a non-finite value', { mode: 'vector', vector: [1, 0, 0, Infinity], model }],
    ['vector beyond float32', { mode: 'vector', vector: [1, 0, 0, 3.5e38], model }],
    ['vector of zeros', { mode: 'vector', vector: [0, 0, 0, 0], model }],
    ['vector zero in float32', { mode: 'vector', vector: [1e-46, 0, 0, 0], model }],
    ['where not an object', { mode: 'fullText', query: 'a', where: [] }],
    ['where on an undeclared column', { mode: 'fullText', query: 'a', where: { owner: 'x' } }],
    ['where with an object value', { mode: 'fullText', query: 'a', where: { category: {} } }],
    ['where with the wrong type', { mode: 'fullText', query: 'a', where: { rating: 'one' } }],
    ['where integer column given 1.5', { mode: 'fullText', query: 'a', where: { rating: 1.5 } }],
    ['where boolean column given 1', { mode: 'fullText', query: 'a', where: { flag: 1 } }],
    ['limit 0', { mode: 'fullText', query: 'a', limit: 0 }],
    ['limit 51', { mode: 'fullText', query: 'a', limit: 51 }],
    ['limit 1.5', { mode: 'fullText', query: 'a', limit: 1.5 }],
    ['limit as a string', { mode: 'fullText', query: 'a', limit: '10' }],
  ])('%s', async (_label, options) => {
    expect(await code(options)).toBe('SEARCH_INPUT_INVALID');
  });

  it('a mode the declaration does not enable', async () => {
    const error = await failure(() => run({ mode: 'vector', vector: [1], model }, 'titles'));
    expect(error.code).toBe('SEARCH_INPUT_INVALID');
    expect(error.message).toMatch(/declares no vector/);
  });

  it('accepts the limits themselves: 2,048 characters after trimming, limit 1 and 50', async () => {
    const query = ` ${'alpha '.repeat(400).slice(0, limits.search.queryMaxLength)} `;
    await expect(run({ mode: 'fullText', query, limit: 1 })).resolves.toBeDefined();
    const { hits } = await s.search.search(systemCaller(), 'docs', {
      mode: 'vector',
      vector: [1, 1, 0, 0],
      model,
      limit: 50,
    });
    expect(hits).toHaveLength(50);
    const defaults = await run({ mode: 'vector', vector: [1, 1, 0, 0], model });
    expect(defaults.hits).toHaveLength(limits.search.limitDefault);
  });
});

describe('SEARCH_MODEL_MISMATCH and SEARCH_DIMENSION_MISMATCH', () => {
  it('a model that is not exactly the declared identity', async () => {
    for (const other of ['test-embed@2', 'TEST-EMBED@1', ' test-embed@1']) {
      expect(await code({ mode: 'vector', vector: [1, 0, 0, 0], model: other })).toBe(
        'SEARCH_MODEL_MISMATCH',
      );
    }
  });
  it('a vector whose length is not the declared dimensions', async () => {
    const error = await failure(() =>
      run({ mode: 'hybrid', query: 'a', vector: [1, 0, 0], model }),
    );
    expect(error.code).toBe('SEARCH_DIMENSION_MISMATCH');
    expect(error.details).toEqual({ length: 3, declared: 4 });
  });
});

describe('SEARCH_RESULT_TOO_LARGE', () => {
  // `{"id":1,"payload":"…"}` is 21 bytes around the payload. Both payloads below hold the same
  // number of "x" words, so they tie and id 1 ranks first.
  const recordOf = (bytes: number) => 'x '.repeat(bytes).slice(0, bytes - 21);

  it('fails, rather than truncates, when one record is over 16 KiB', async () => {
    const max = limits.search.recordMaxBytes;
    await s.app.db.query('insert into big values (1, $1), (2, $2)', [
      recordOf(max),
      recordOf(max + 1),
    ]);
    const exact = await s.search.search(systemCaller(), 'big', {
      mode: 'fullText',
      query: 'x',
      limit: 1,
    });
    expect(exact.hits.map((h) => h.record.id)).toEqual([1]);
    expect(new TextEncoder().encode(JSON.stringify(exact.hits[0]!.record)).length).toBe(max);
    const error = await failure(() =>
      s.search.search(systemCaller(), 'big', { mode: 'fullText', query: 'x', limit: 2 }),
    );
    expect(error.code).toBe('SEARCH_RESULT_TOO_LARGE');
    expect(error.details).toMatchObject({ recordBytes: max + 1, limit: max });
  });

  it('fails when the whole answer is over the response limit', async () => {
    // 50 records of 16 KiB fit in 1 MiB, so the backstop is shown with a smaller limit.
    const small = new SearchService(s.app.db, [big], {
      sizes: { recordMaxBytes: limits.search.recordMaxBytes, responseMaxBytes: 20_000 },
    });
    await s.app.db.query('delete from big where id = 2');
    await s.app.db.query('insert into big values (3, $1)', [recordOf(8_000)]);
    const error = await failure(() =>
      small.search(systemCaller(), 'big', { mode: 'fullText', query: 'x', limit: 2 }),
    );
    expect(error.code).toBe('SEARCH_RESULT_TOO_LARGE');
    expect(error.details).toMatchObject({ limit: 20_000 });
  });
});

describe('SEARCH_UNAVAILABLE', () => {
  it('a declared table that does not exist yet, then works once a migration adds it', async () => {
    const later: SearchDeclaration = { ...textOnly, name: 'later', table: 'later' };
    const service = new SearchService(s.app.db, [later]);
    const [report] = await service.prepare();
    expect(report!.problem).toMatch(/Table "later".*does not exist/);
    const error = await failure(() =>
      service.search(ada, 'later', { mode: 'fullText', query: 'a' }),
    );
    expect(error).toMatchObject({ code: 'SEARCH_UNAVAILABLE', details: { reason: 'schema' } });
    expect(isPlatformError(error) && error.retryable).toBe(true);
    await s.app.db.exec(
      'create table later (id integer primary key, title text); grant select on later to authenticated',
    );
    await expect(service.search(ada, 'later', { mode: 'fullText', query: 'a' })).resolves.toEqual({
      hits: [],
    });
  });

  it('a database that went away', async () => {
    const other = await openSearchApp({ corpusSize: 5 });
    await other.app.db.close();
    const error = await failure(() =>
      other.search.search(ada, 'docs', { mode: 'fullText', query: 'alpha' }),
    );
    expect(error).toMatchObject({ code: 'SEARCH_UNAVAILABLE', details: { reason: 'database' } });
    await other.cleanup();
  });
});
