import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';

/** How long a notification may take to be heard, the connection restored included. */
const within = { timeout: 10_000 };

describe('LISTEN on a real PostgreSQL', () => {
  let server: PostgresServer;
  let db: PostgresDatabase;
  let probe: PostgresDatabase;

  beforeAll(async () => {
    server = await startPostgres();
    [db, probe] = await Promise.all([
      PostgresDatabase.connect(server.url, 2),
      PostgresDatabase.connect(server.url, 1),
    ]);
  });
  afterAll(async () => {
    await db?.close();
    await probe?.close();
    await server?.stop();
  });

  // The sessions that listen on anything, seen from another connection.
  const listeningSessions = async () =>
    (
      await probe.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      )
    ).rows[0]?.n;
  const notify = (channel: string, payload: string) =>
    probe.query('SELECT pg_notify($1, $2)', [channel, payload]);

  it('carries every channel of a database on one connection, and again after a restart', async () => {
    const heard: string[] = [];
    const stopA = await db.listen('alpha', (payload) => heard.push(`a:${payload}`));
    const stopB = await db.listen('beta', (payload) => heard.push(`b:${payload}`));
    const stopB2 = await db.listen('beta', (payload) => heard.push(`b2:${payload}`));
    expect(await listeningSessions()).toBe(1);

    await notify('alpha', '1');
    await notify('beta', '2');
    await notify('gamma', 'nobody');
    await expect.poll(() => heard.length, within).toBe(3);
    expect(heard.sort()).toEqual(['a:1', 'b2:2', 'b:2']);

    // The server goes away and comes back: the one connection listens on both channels again.
    await server.restart?.(500);
    heard.length = 0;
    await expect
      .poll(async () => {
        await notify('alpha', 'again').catch(() => undefined);
        return heard;
      }, within)
      .toContain('a:again');
    await expect
      .poll(async () => {
        await notify('beta', 'again').catch(() => undefined);
        return heard.includes('b:again') && heard.includes('b2:again');
      }, within)
      .toBe(true);
    expect(await listeningSessions()).toBe(1);

    // One handler stops: the channel's other handler still hears; the last one ends the listening.
    await stopB2();
    heard.length = 0;
    await notify('beta', '3');
    await expect.poll(() => heard, within).toContain('b:3');
    expect(heard).not.toContain('b2:3');
    await stopB();
    await stopA();
    await expect.poll(listeningSessions, within).toBe(0);
    await notify('alpha', 'late');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).not.toContain('a:late');
  });
});
