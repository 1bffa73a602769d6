import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appDataDir, centralDataDir } from '../db/data-dirs.ts';
import { PgliteDatabase } from '../db/pglite-database.ts';

/** Which of an app folder's embedded databases. */
export type EarlyDatabase = 'app' | 'central';

/**
 * The embedded databases of one app folder, opening before the rest of the broker's code has
 * loaded: opening one takes a worker thread most of half a second, while the main thread only
 * waits for it (`platform dev` in a warm folder). Only a database that exists already opens
 * early; a new one needs the platform schema's snapshot, and PostgreSQL (`DATABASE_URL`) opens
 * as before. The start that takes one over owns it; {@link EarlyDatabases.close} closes the rest.
 * This module imports only the embedded database itself, so the opening can start first.
 *
 * @example
 * ```ts
 * const early = EarlyDatabases.open(appDir);
 * const { startDevWith } = await import('./start-dev.ts');
 * await startDevWith({ appDir }, early);
 * ```
 */
export class EarlyDatabases {
  readonly #opening = new Map<EarlyDatabase, Promise<PgliteDatabase>>();

  /** Begins opening the existing embedded databases of `appDir`. */
  static open(appDir: string, env: NodeJS.ProcessEnv = process.env): EarlyDatabases {
    const early = new EarlyDatabases();
    if (env.DATABASE_URL) return early;
    // The same settings as the normal path: the app's database with pgvector, the store without.
    const dirs: [EarlyDatabase, string, boolean][] = [
      ['app', appDataDir(appDir), true],
      ['central', centralDataDir(appDir), false],
    ];
    for (const [which, dataDir, vector] of dirs) {
      if (!existsSync(join(dataDir, 'PG_VERSION'))) continue;
      const opening = PgliteDatabase.open({ dataDir, vector });
      // Heard by whoever takes it; a failure before then must not end the process.
      opening.catch(() => undefined);
      early.#opening.set(which, opening);
    }
    return early;
  }

  /** The database `which`, opening or open, now the caller's to close; once only. */
  take(which: EarlyDatabase): Promise<PgliteDatabase> | undefined {
    const opening = this.#opening.get(which);
    this.#opening.delete(which);
    return opening;
  }

  /** Closes every database not taken, once it has opened; one that failed to open is let be. */
  async close(): Promise<void> {
    const left = [...this.#opening.values()];
    this.#opening.clear();
    await Promise.all(
      left.map((opening) => opening.then((db) => db.close()).catch(() => undefined)),
    );
  }
}
