// Account deletion asks every feature to erase its rows of a person (spec 3.5). This checks that
// no feature forgets: every platform table with a column that names a person is erased by some
// feature's erasure, or is listed below with the reason it keeps no trace of a deleted person.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBrokerOptions } from '../../src/app/broker-options.ts';
import { brokerFeatures } from '../../src/app/features.ts';
import type { Queryable } from '../../src/db/database.ts';
import type { ErasedPerson } from '../../src/feature/broker-feature.ts';
import { erasuresOf } from '../../src/feature/compose.ts';
import { appWithDatabase, type Database, openTestCentral } from '../helpers/db.ts';

// A column that names a person: an account or user id, or an address.
const PERSONAL = /(^|_)(account_id|user_id|email|address|from|recipients)$/;

/** Tables that name a person but are not a feature's to erase, and why. */
const handledElsewhere: Record<string, string> = {
  accounts: 'account deletion itself removes the account record, last',
  account_deletions: 'the record of the deletion: its address is cleared once the email is sent',
  apps: "a departing member's apps pass to an administrator (the owner column is rewritten, not erased); the only member's go with the organisation",
};

/** A statement recorder that answers every table as present. */
function recorder(): Queryable & { readonly deleted: Set<string> } {
  const deleted = new Set<string>();
  return {
    deleted,
    query: async (sql: string) => {
      const table = /DELETE FROM platform\.(\w+)/.exec(sql)?.[1];
      if (table) deleted.add(table);
      return { rows: [{ found: 'platform.x' }], rowCount: 0, fields: [] } as never;
    },
    exec: async () => undefined,
  } as unknown as Queryable & { readonly deleted: Set<string> };
}

async function personalTables(db: Database): Promise<Map<string, string[]>> {
  const { rows } = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'platform' ORDER BY table_name, column_name`,
  );
  const tables = new Map<string, string[]>();
  for (const { table_name, column_name } of rows) {
    if (!PERSONAL.test(column_name)) continue;
    tables.set(table_name, [...(tables.get(table_name) ?? []), column_name]);
  }
  return tables;
}

describe('the features of the registry', () => {
  let central: Database;
  let app: Awaited<ReturnType<typeof appWithDatabase>>;

  beforeAll(async () => {
    central = await openTestCentral();
    app = await appWithDatabase({}, { inMemory: true });
  }, 60_000);
  afterAll(async () => {
    await central?.close();
    await app?.cleanup();
  });

  it('erase every platform table that names a person, in the central store and the app', async () => {
    const options = await resolveBrokerOptions({ appDir: app.appDir, appId: 'a', sdkVersion: '0' });
    const erasures = erasuresOf(brokerFeatures(options, 'http://localhost'));
    const person: ErasedPerson = {
      accountId: 'x',
      email: 'x@example.com',
      requestedAt: new Date(),
    };
    const inCentral = recorder();
    const inApp = recorder();
    for (const erasure of erasures) {
      await erasure.person?.(inCentral, person);
      await erasure.appPerson?.(inApp, person);
    }
    const kept = new Set(erasures.flatMap((erasure) => erasure.keptByAppWipe ?? []));
    const missed: string[] = [];
    for (const [where, db, recorded] of [
      ['central store', central, inCentral],
      ['app database', app.db, inApp],
    ] as const) {
      for (const [table, columns] of await personalTables(db)) {
        if (recorded.deleted.has(table) || table in handledElsewhere) continue;
        // In the app's database the accounts side is kept by a wipe and erased as the central part.
        if (where === 'app database' && (kept.has(table) || inCentral.deleted.has(table))) continue;
        missed.push(`${where}: platform.${table} (${columns.join(', ')})`);
      }
    }
    expect(missed).toEqual([]);
  });
});
