// The audit of integration calls: a row for every call, durable before the call answers, written
// together with the rows of calls that finish meanwhile; journaled rows survive a crash and are
// never counted twice.
import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { AuditJournal } from '../../src/integrations/audit-journal.ts';
import {
  IntegrationAudit,
  type IntegrationCallRecord,
} from '../../src/integrations/integration-audit.ts';
import { openTestCentral } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let central: Database;
let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  central = await openTestCentral();
  dir = await tempDir('audit-journal-');
});
afterEach(async () => {
  await central.close();
  await dir.remove();
});

const call = (i: number): IntegrationCallRecord => ({
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  integration: 'crm',
  providerAppId: 'crm',
  consumerAppId: 'sales',
  slot: 'crm',
  connectionId: null,
  operation: 'contacts.findByEmail',
  environment: 'development',
  mode: 'fake',
  result: 'ok',
  durationMs: i,
});

/** `db` with every statement counted in `seen`. */
function counted(db: Database, seen: string[]): Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'query') {
        return (sql: string, params?: readonly unknown[]) => {
          seen.push(sql);
          return target.query(sql, params);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const rowsInTable = async () =>
  Number(
    (await central.query<{ n: number }>('SELECT count(*) AS n FROM platform.integration_calls'))
      .rows[0]?.n,
  );

describe('the audit without a journal (PostgreSQL, in-memory stores)', () => {
  it('commits each row before its call answers, the rows of calls that finish together in one statement', async () => {
    const seen: string[] = [];
    const audit = new IntegrationAudit(counted(central, seen));
    await Promise.all(Array.from({ length: 8 }, (_, i) => audit.record(call(i))));
    // The first is written at once; the seven that arrive meanwhile go in the next statement.
    expect(seen.filter((sql) => sql.includes('INSERT'))).toHaveLength(2);
    expect(await rowsInTable()).toBe(8);
    expect((await audit.list('sales')).map((one) => one.durationMs)).toEqual([
      7, 6, 5, 4, 3, 2, 1, 0,
    ]);
  });
});

describe('the journaled audit (the embedded central store)', () => {
  it('answers once the row is journaled and writes the rows of many calls in one statement', async () => {
    const seen: string[] = [];
    const audit = await IntegrationAudit.open(counted(central, seen), dir.path);
    for (let i = 0; i < 50; i++) await audit.record(call(i));
    // Each answered call's row is on disk already, before any statement wrote it.
    const [segment] = await readdir(dir.path);
    const lines = (await readFile(join(dir.path, segment!), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(50);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ...call(0), id: expect.any(Number) });
    expect(seen.filter((sql) => sql.includes('INSERT'))).toHaveLength(0);
    // Reads see every answered call.
    expect(await audit.list('sales')).toHaveLength(50);
    expect(seen.filter((sql) => sql.includes('INSERT'))).toHaveLength(1);
    await audit.close();
    expect(await readdir(dir.path)).toEqual([]);
    expect(await rowsInTable()).toBe(50);
  });

  it('writes the rows a crashed broker journaled, once, and skips a line cut short', async () => {
    const before = await IntegrationAudit.open(central, dir.path);
    for (let i = 0; i < 5; i++) await before.record(call(i));
    await before.close();
    expect(await rowsInTable()).toBe(5);
    // What a broker killed meanwhile leaves: a segment whose rows were committed but which was
    // not removed yet, one whose rows were not committed, and a last line cut short by the kill
    // in the middle of its write (its call never answered).
    const { journal } = await AuditJournal.open(dir.path);
    const { rows: committed } = await central.query<{ id: number; duration_ms: number }>(
      'SELECT id, duration_ms FROM platform.integration_calls ORDER BY id',
    );
    for (const row of committed) journal.append({ ...call(row.duration_ms), id: Number(row.id) });
    journal.seal();
    const { rows: ids } = await central.query<{ id: number }>(
      `SELECT nextval(pg_get_serial_sequence('platform.integration_calls', 'id')) AS id
         FROM generate_series(1, 3)`,
    );
    for (const [i, row] of ids.entries()) journal.append({ ...call(5 + i), id: Number(row.id) });
    const [, current] = (await readdir(dir.path)).sort();
    await appendFile(join(dir.path, current!), '{"id":99999,"at":"2026-01-01T00:0');

    const restarted = await IntegrationAudit.open(central, dir.path);
    expect(await rowsInTable()).toBe(8);
    expect((await restarted.list('sales')).map((one) => one.durationMs)).toEqual([
      7, 6, 5, 4, 3, 2, 1, 0,
    ]);
    await restarted.record(call(8));
    await restarted.close();
    expect(await rowsInTable()).toBe(9);
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('fails the call, never answering without its row, when the journal cannot be written', async () => {
    const audit = await IntegrationAudit.open(central, dir.path);
    await audit.close();
    await expect(audit.record(call(0))).rejects.toThrow(/journal is closed/);
    expect(await rowsInTable()).toBe(0);
  });
});
