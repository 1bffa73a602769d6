// A worked example of a broker feature, kept in the tree so the typechecker keeps it honest
// (CONTRIBUTING.md, "Adding a feature to the broker"). A real feature is a folder under
// packages/broker/src, e.g. src/notes/, with these pieces in files of their own.
import { PlatformError } from '@platform/errors';
import type { Database } from '../../../src/db/database.ts';
import type { SchemaChange } from '../../../src/db/platform-schema.ts';
import type { BrokerFeature } from '../../../src/feature/broker-feature.ts';
import { eraseRows } from '../../../src/feature/erase-rows.ts';

/**
 * 1. Its tables: a schema change in the feature's folder. The ordered, numbered list in
 *    `app/platform-schema.ts` (app databases) or `app/central-schema.ts` (the central store)
 *    appends it with the next version.
 */
export const notesTableStep: SchemaChange = {
  name: 'notes',
  sql: `CREATE TABLE platform.notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL,
  text text NOT NULL
);`,
};

/** 2. Its service: what the rest of the broker calls. */
export class Notes {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Keeps a note of the account `accountId`. */
  async add(accountId: string, text: string): Promise<void> {
    if (text.length === 0 || text.length > 500) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'A note has 1 to 500 characters.',
      });
    }
    await this.#db.query('INSERT INTO platform.notes (account_id, text) VALUES ($1, $2)', [
      accountId,
      text,
    ]);
  }

  /** How many notes the broker keeps. */
  async count(): Promise<number> {
    const { rows } = await this.#db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM platform.notes',
    );
    return rows[0]?.n ?? 0;
  }
}

/** A note counter a feature listed later may want: `Needs` names what this one uses. */
export interface NotesNeeds {
  readonly outbox: { list(): Promise<readonly unknown[]> };
}

/**
 * 3. The feature: its name (the key of its service), what it needs from the features above it
 *    in the registry, how it starts, its routes, and how it forgets a deleted person. The
 *    registry line in `app/features.ts` is then `notesFeature,` below `outboxFeature`.
 */
export const notesFeature: BrokerFeature<'notes', NotesNeeds, Notes> = {
  name: 'notes',
  start: (base) => {
    const notes = new Notes(base.db);
    // Anything opened here that must be closed: base.onClose(() => thing.close()).
    return notes;
  },
  mount: {
    // After sign-in's admission check, like most routes; `edge` would come before it.
    routes: (app, notes) => {
      app.get('/_platform/example/notes', async (c) => c.json({ count: await notes.count() }));
    },
  },
  erasure: {
    // A table of the app's database: the person's rows go when an app that stays removes them.
    appPerson: (tx, { accountId }) => eraseRows(tx, 'notes', 'account_id = $1', [accountId]),
  },
};
