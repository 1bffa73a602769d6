import type { SearchDeclaration } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { sdkSearchDeclarations } from '../../src/search/search-options.ts';
import { SearchService } from '../../src/search/search-service.ts';
import { fullTextIndexName } from '../../src/search/search-setup.ts';
import { docsSearch, users } from './corpus.ts';
import { openSearchApp, type SearchApp } from './fixture.ts';
import { referenceSearch } from './reference.ts';

const notes = `
create table notes (id bigint generated always as identity primary key, body text, meta jsonb,
  owner uuid default auth.uid(), emb vector(3));
grant select on notes to authenticated;
insert into notes (body) values ('The runners were running'), ('A quiet run'), ('Nothing here');
`;

let s: SearchApp;
beforeAll(async () => {
  s = await openSearchApp({ migrations: { '002_notes.sql': notes } });
});
afterAll(async () => {
  await s?.cleanup();
});

const base = (patch: Partial<SearchDeclaration>): SearchDeclaration => ({
  name: 'notes',
  table: 'notes',
  select: ['id', 'body'],
  fullText: { columns: ['body'], language: 'english' },
  filters: [],
  ...patch,
});
const problems = async (declaration: SearchDeclaration) =>
  (await new SearchService(s.app.db, [declaration]).prepare())[0]!.problem;

describe('what a declaration creates', () => {
  it('adds the vector(n) column, a GIN expression index and no approximate index', async () => {
    const { rows: columns } = await s.app.db.query<{ type: string }>(
      `select format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = 'docs'::regclass and attname = 'embedding'`,
    );
    expect(columns).toEqual([{ type: 'vector(4)' }]);
    const { rows: indexes } = await s.app.db.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where tablename = 'docs' and indexname <> 'docs_pkey'`,
    );
    expect(indexes).toHaveLength(1);
    expect(indexes[0]!.indexname).toBe(fullTextIndexName(docsSearch));
    expect(indexes[0]!.indexdef).toMatch(/USING gin \(to_tsvector\('simple'::regconfig/);
    // Preparing again changes nothing.
    expect(await problems(docsSearch)).toBeUndefined();
    const again = await s.app.db.query(`select 1 from pg_indexes where tablename = 'docs'`);
    expect(again.rows).toHaveLength(2);
  });

  it('uses the declared language (english stems, simple does not)', async () => {
    const english = new SearchService(s.app.db, [base({})]);
    const simple = new SearchService(s.app.db, [
      base({ fullText: { columns: ['body'], language: 'simple' } }),
    ]);
    const ask = (service: SearchService) =>
      service.search(userCaller(users.ada), 'notes', { mode: 'fullText', query: 'run' });
    expect((await ask(english)).hits.map((h) => h.record.body)).toEqual([
      'The runners were running',
      'A quiet run',
    ]);
    expect((await ask(simple)).hits.map((h) => h.record.body)).toEqual(['A quiet run']);
  });

  it('reports declarations that do not fit the database', async () => {
    expect(await problems(base({ table: 'nope' }))).toMatch(/Table "nope".*does not exist/);
    expect(await problems(base({ select: ['id', 'title'] }))).toMatch(/no column "title"/);
    expect(await problems(base({ fullText: { columns: ['meta'], language: 'simple' } }))).toMatch(
      /must be text/,
    );
    expect(await problems(base({ filters: ['meta'] }))).toMatch(/not a scalar column/);
    expect(await problems(base({ vector: { column: 'emb', dimensions: 8, model: 'm' } }))).toMatch(
      /must be vector\(8\)/,
    );
    expect(await problems(base({ filters: ['owner'] }))).toBeUndefined();
  });

  it('never ranks from an approximate index, even when the app created one', async () => {
    await s.app.db.exec(
      'create index docs_hnsw on docs using hnsw (embedding vector_cosine_ops); set enable_seqscan = off',
    );
    try {
      const request = { mode: 'vector', vector: [1, -1, 0, 2], model: 'test-embed@1', limit: 20 };
      const statement = await s.search.statementFor('docs', request);
      const { rows } = await s.app.db.query<{ 'QUERY PLAN': string }>(
        `explain ${statement.text}`,
        statement.values,
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).not.toMatch(/docs_hnsw/);
      const { hits } = await s.search.search(userCaller(users.bob), 'docs', request);
      const expected = referenceSearch(s.corpus, users.bob, request as never);
      expect(hits.map((h) => h.record.id)).toEqual(expected.map((h) => h.record.id));
    } finally {
      await s.app.db.exec('drop index docs_hnsw; reset enable_seqscan');
    }
  });

  it('derives what the SDK checks client-side', () => {
    const { fullText: _, ...vectorOnly } = base({
      name: 'vectors',
      vector: { column: 'embedding', dimensions: 2, model: 'm@1' },
    });
    expect(sdkSearchDeclarations([docsSearch, base({}), vectorOnly])).toEqual({
      docs: {
        fullText: true,
        model: 'test-embed@1',
        dimensions: 4,
        filters: ['category', 'flag', 'rating'],
      },
      notes: { fullText: true, model: null, dimensions: null, filters: [] },
      vectors: { fullText: false, model: 'm@1', dimensions: 2, filters: [] },
    });
  });
});
