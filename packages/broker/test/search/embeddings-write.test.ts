import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataService } from '../../src/data/data-service.ts';
import type { Database } from '../../src/db/database.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { SearchService } from '../../src/search/search-service.ts';
import { appWithDatabase, openPostgres } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { corpusMigration, docsSearch, users } from './corpus.ts';

// An app writes its embeddings through `data` as arrays of numbers, on PGlite's pgvector and on
// a PostgreSQL without it (real[] embeddings) alike, and searches find them.
const ada = userCaller(users.ada);
const model = docsSearch.vector!.model;
// PGlite, or a private cluster under PLATFORM_DEV_DATABASE=cluster.
const engines: { name: string; db: Database; close: () => Promise<void> }[] = [];
let server: PostgresServer;

beforeAll(async () => {
  const app = await appWithDatabase({ '001_docs.sql': corpusMigration }, { inMemory: true });
  engines.push({ name: 'embedded', db: app.db, close: app.cleanup });
  server = await startPostgres();
  const dir = await tempDir('search-embeddings-');
  const { db } = await openPostgres(server.url, dir.path);
  await db.exec(corpusMigration);
  engines.push({ name: 'PostgreSQL', db, close: () => db.close().then(dir.remove) });
  for (const engine of engines) {
    // Writing through `data` needs the caller to be allowed to insert.
    await engine.db.exec(`grant insert, select on docs to authenticated;
      create policy docs_insert on docs for insert to authenticated with check (owner = auth.uid())`);
  }
}, 60_000);

afterAll(async () => {
  for (const engine of engines) await engine.close();
  await server?.stop();
});

describe('embeddings written through data', () => {
  it('an array of numbers is an embedding on either engine, and a vector search finds it', async () => {
    for (const { name, db } of engines) {
      const search = new SearchService(db, [docsSearch]);
      expect(await search.prepare(), name).toEqual([{ name: 'docs', problem: undefined }]);
      const data = new DataService(db);
      const row = { owner: users.ada, title: 'near', embedding: [1, 0, 2, 0] };
      await data.create(ada, 'docs', { id: 1, ...row });
      await data.create(ada, 'docs', { id: 2, ...row, title: 'far', embedding: [0, 3, 0, -1] });
      const { hits } = await search.search(ada, 'docs', {
        mode: 'vector',
        vector: [2, 0, 4, 0],
        model,
      });
      expect(
        hits.map((h) => [h.record.title, h.vectorRank]),
        name,
      ).toEqual([
        ['near', 1],
        ['far', 2],
      ]);
      expect(hits[0]!.vectorDistance, name).toBeCloseTo(0, 12);
      // A wrong length is refused: by pgvector's input (INVALID_INPUT), or by the real[]
      // column's check (DATA_CONSTRAINT_VIOLATION).
      const { rows } = await db.query<{ type: string }>(
        `select format_type(atttypid, atttypmod) as type from pg_attribute
          where attrelid = 'docs'::regclass and attname = 'embedding'`,
      );
      const arrays = rows[0]!.type === 'real[]';
      await expect(
        data.create(ada, 'docs', { id: 3, ...row, embedding: [1, 2, 3] }),
        name,
      ).rejects.toMatchObject({ code: arrays ? 'DATA_CONSTRAINT_VIOLATION' : 'INVALID_INPUT' });
    }
  });
});
