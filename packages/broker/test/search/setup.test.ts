import type { SearchDeclaration } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemCaller, userCaller } from '../../src/kernel/caller.ts';
import { documentsName } from '../../src/search/search-documents.ts';
import { sdkSearchDeclarations } from '../../src/search/search-options.ts';
import { SearchService } from '../../src/search/search-service.ts';
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
  it('adds the vector(n) column, indexed documents beside the table and no approximate index', async () => {
    const { rows: columns } = await s.app.db.query<{ type: string }>(
      `select format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = 'docs'::regclass and attname = 'embedding'`,
    );
    expect(columns).toEqual([{ type: 'vector(4)' }]);
    // Nothing else on the app's table: its documents and their GIN index live beside it.
    const { rows: onTable } = await s.app.db.query(
      `select indexname from pg_indexes where tablename = 'docs' and indexname <> 'docs_pkey'`,
    );
    expect(onTable).toEqual([]);
    const documentIndexes = () =>
      s.app.db.query<{ indexdef: string }>(
        `select indexdef from pg_indexes where schemaname = 'platform_search' and tablename = $1`,
        [documentsName(docsSearch)],
      );
    const { rows: indexes } = await documentIndexes();
    expect(indexes.map((i) => i.indexdef)).toEqual([
      expect.stringMatching(/PRIMARY KEY|UNIQUE INDEX .*\(id\)/),
      expect.stringMatching(/USING gin \(document\)/),
    ]);
    // Preparing again changes nothing.
    expect(await problems(docsSearch)).toBeUndefined();
    expect((await documentIndexes()).rows).toHaveLength(2);
  });

  it('keeps the documents in step with inserts, updates, deletes and truncation', async () => {
    const db = s.app.db;
    await db.query(`create table memo (id integer primary key, body text)`);
    await db.query(`insert into memo values (1, 'apples and pears')`);
    const memo = base({ name: 'memo', table: 'memo', select: ['id', 'body'] });
    const service = new SearchService(db, [memo]);
    expect(await problems(memo)).toBeUndefined();
    const find = async (query: string) =>
      (await service.search(systemCaller(), 'memo', { mode: 'fullText', query })).hits.map(
        (h) => h.record.id,
      );
    expect(await find('apples')).toEqual([1]);
    await db.query(`insert into memo values (2, 'green apples')`);
    await db.query(`update memo set body = 'plums' where id = 1`);
    expect(await find('apples')).toEqual([2]);
    expect(await find('plums')).toEqual([1]);
    await db.query(`update memo set id = 3 where id = 1`);
    expect(await find('plums')).toEqual([3]);
    await db.query(`delete from memo where id = 2`);
    expect(await find('apples')).toEqual([]);
    await db.query(`truncate memo`);
    expect(await find('plums')).toEqual([]);
    const { rows } = await db.query(
      `select count(*)::int as n from platform_search."${documentsName(memo)}"`,
    );
    expect(rows).toEqual([{ n: 0 }]);
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
