// A credential's last use is written at most once a minute: a burst of requests with one app
// access token or agent credential writes its row once, not once per request, on PGlite and on
// PostgreSQL (where two processes share the row); a use after the interval records the new time,
// and a revoked credential is still refused at once. Row writes are counted by a trigger.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentralStore } from '../../src/app/open-central.ts';
import { AgentCredentials } from '../../src/auth/agent-credentials.ts';
import { APP_TOKEN_PREFIX, AppTokens } from '../../src/auth/app-tokens.ts';
import { LAST_USE_INTERVAL_MS, RecentLastUse } from '../../src/auth/last-use.ts';
import type { Database } from '../../src/db/database.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { appWithDatabase, openPostgres, openTestCentral } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const BURST = 20;

/** Counts the rows an `UPDATE` writes in `table`, in a schema of its own. */
async function countWrites(db: Database, table: string): Promise<() => Promise<number>> {
  await db.exec(`
CREATE SCHEMA IF NOT EXISTS use_log;
CREATE TABLE IF NOT EXISTS use_log.writes (tbl text NOT NULL);
CREATE OR REPLACE FUNCTION use_log.count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO use_log.writes VALUES (TG_TABLE_NAME); RETURN NULL; END $$;
CREATE TRIGGER count_writes AFTER UPDATE ON platform.${table}
  FOR EACH ROW EXECUTE FUNCTION use_log.count();
`);
  return async () =>
    Number(
      (
        await db.query<{ n: string }>('SELECT count(*) AS n FROM use_log.writes WHERE tbl = $1', [
          table,
        ])
      ).rows[0]?.n,
    );
}

interface Stores {
  readonly app: Database;
  readonly central: Database;
}

function lastUseSuite(engine: string, open: () => Promise<Stores>) {
  describe(`last use on ${engine}`, { timeout: 60_000 }, () => {
    let stores: Stores;
    beforeAll(async () => {
      stores = await open();
    }, 120_000);

    it('a burst with one app token writes its last use once, at the first use', async () => {
      const clock = new ManualClock('2026-03-02T10:00:00Z');
      const writes = await countWrites(stores.app, 'app_tokens');
      // Two instances are two processes (nodes) sharing the row.
      const nodeA = new AppTokens(stores.app, clock, 'notes');
      const nodeB = new AppTokens(stores.app, clock, 'notes');
      const { token, id } = await nodeA.issue('ci');
      const lastUse = async () => (await nodeA.list()).find((t) => t.id === id)?.lastUsedAt;

      const burst = await Promise.all(Array.from({ length: BURST }, () => nodeA.verify(token)));
      expect(burst.every(Boolean)).toBe(true);
      expect(await writes()).toBe(1);
      expect(await lastUse()).toBe('2026-03-02T10:00:00.000Z');

      // Within the interval: neither this process nor another writes.
      clock.advance(LAST_USE_INTERVAL_MS / 2);
      for (let i = 0; i < 5; i++) expect(await nodeA.verify(token)).toBe(true);
      expect(await nodeB.verify(token)).toBe(true);
      expect(await writes()).toBe(1);
      expect(await lastUse()).toBe('2026-03-02T10:00:00.000Z');

      // After it, the next use records its own time; the other process then finds it fresh.
      clock.advance(LAST_USE_INTERVAL_MS / 2 + 1000);
      expect(await nodeA.verify(token)).toBe(true);
      expect(await writes()).toBe(2);
      expect(await lastUse()).toBe('2026-03-02T10:01:01.000Z');
      expect(await nodeB.verify(token)).toBe(true);
      expect(await writes()).toBe(2);

      // A stale value met by both processes at once is still written once.
      clock.advance(LAST_USE_INTERVAL_MS + 1000);
      const both = await Promise.all(
        Array.from({ length: BURST }, (_, i) => (i % 2 === 0 ? nodeA : nodeB).verify(token)),
      );
      expect(both.every(Boolean)).toBe(true);
      expect(await writes()).toBe(3);
      expect(await lastUse()).toBe('2026-03-02T10:02:02.000Z');

      // Remembering the write never lets a revoked or wrong token through.
      expect(await nodeA.revoke(id)).toBe(true); // itself one row write
      expect(await nodeA.verify(token)).toBe(false);
      expect(await nodeB.verify(token)).toBe(false);
      expect(await nodeA.verify(`${APP_TOKEN_PREFIX}${'A'.repeat(43)}`)).toBe(false);
      expect(await writes()).toBe(4);
    });

    it('a burst with one agent credential writes its last use once; a later use records its time', async () => {
      const clock = new ManualClock('2026-03-02T12:00:00Z');
      const writes = await countWrites(stores.central, 'agent_credentials');
      const credentials = new AgentCredentials(stores.central, clock);
      const other = new AgentCredentials(stores.central, clock);
      const issued = await credentials.issue(randomUUID(), 'notes', 'agent');
      const lastUse = async () =>
        (await credentials.list('notes')).find((c) => c.id === issued.id)?.lastUsedAt;

      const burst = await Promise.all(
        Array.from({ length: BURST }, () => credentials.verify(issued.token)),
      );
      expect(burst.every((c) => c?.id === issued.id)).toBe(true);
      expect(await writes()).toBe(1);
      expect(await lastUse()).toBe('2026-03-02T12:00:00.000Z');

      clock.advance(LAST_USE_INTERVAL_MS - 1000);
      expect((await other.verify(issued.token))?.id).toBe(issued.id);
      expect((await credentials.verify(issued.token))?.lastUsedAt).toBe('2026-03-02T12:00:00.000Z');
      expect(await writes()).toBe(1);

      clock.advance(2000);
      expect((await other.verify(issued.token))?.lastUsedAt).toBe('2026-03-02T12:01:01.000Z');
      expect(await writes()).toBe(2);
      expect(await lastUse()).toBe('2026-03-02T12:01:01.000Z');

      expect(await credentials.revoke('notes', issued.id)).toBe(true);
      expect(await credentials.verify(issued.token)).toBeUndefined();
    });
  });
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}, 60_000);

lastUseSuite('PGlite', async () => {
  const app = await appWithDatabase({}, { inMemory: true });
  cleanups.push(app.cleanup);
  const central = await openTestCentral();
  cleanups.push(() => central.close());
  return { app: app.db, central };
});

let pg: PostgresServer | undefined;
lastUseSuite('PostgreSQL', async () => {
  pg = await startPostgres();
  const server = pg;
  cleanups.push(() => server.stop());
  const url = await pg.createDatabase('last_use');
  const dir = await tempDir('broker-last-use-');
  cleanups.push(dir.remove);
  const { db: app } = await openPostgres(url, dir.path);
  cleanups.push(() => app.close());
  const central = await openCentralStore({ dir: dir.path, databaseUrl: url });
  cleanups.push(() => central.close());
  return { app, central };
});

describe('the memory of recent writes', () => {
  it('stays within its bound, forgetting the oldest first', () => {
    const recent = new RecentLastUse(60_000, 2);
    const now = new Date('2026-03-02T10:00:00Z');
    for (const key of ['a', 'b', 'c']) expect(recent.claim(key, now)).toBe(true);
    // `a` was forgotten to keep two: its next use tries the (conditional) write again.
    expect(recent.claim('b', now)).toBe(false);
    expect(recent.claim('c', now)).toBe(false);
    expect(recent.claim('a', now)).toBe(true);
  });

  it('tries again after a failed write and after a clock that went back', () => {
    const recent = new RecentLastUse(60_000);
    const now = new Date('2026-03-02T10:00:00Z');
    expect(recent.claim('a', now)).toBe(true);
    recent.settle('a', null);
    expect(recent.claim('a', now)).toBe(true);
    expect(recent.claim('a', new Date(now.getTime() - 1000))).toBe(true);
  });
});
