import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from './database.ts';

/** What {@link applyMigrations} did. */
export interface MigrationReport {
  /** Files applied by this run, in order. */
  readonly applied: readonly string[];
  /** Files applied earlier whose content has changed since (never re-applied). */
  readonly changed: readonly string[];
}

/** A migration file that failed; the database is left as it was before that file. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  /** The file name inside `migrations/`. */
  readonly file: string;

  constructor(file: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Migration ${file} failed: ${reason}`, { cause });
    this.file = file;
  }
}

const checksum = (sql: string): string => createHash('sha256').update(sql).digest('hex');

/** The `.sql` files of `dir` in the order they are applied (by name); none when it is missing. */
export async function listMigrations(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => name.endsWith('.sql')).sort();
}

/**
 * Applies the app's `migrations/*.sql` files in name order, each exactly once: a file runs in its
 * own transaction together with its row in `platform.migrations`, so a failing file leaves
 * nothing behind and is tried again on the next start. A file changed after it was applied is
 * reported, not re-applied (write a new file instead).
 *
 * @example
 * ```ts
 * const { applied } = await applyMigrations(db, join(appDir, 'migrations'));
 * ```
 */
export async function applyMigrations(db: Database, dir: string): Promise<MigrationReport> {
  const files = await listMigrations(dir);
  const applied: string[] = [];
  const changed: string[] = [];
  if (files.length === 0) return { applied, changed };
  const { rows } = await db.query<{ name: string; checksum: string }>(
    'SELECT name, checksum FROM platform.migrations',
  );
  const done = new Map(rows.map((row) => [row.name, row.checksum]));
  for (const file of files) {
    const sql = await readFile(join(dir, file), 'utf8');
    const sum = checksum(sql);
    const previous = done.get(file);
    if (previous !== undefined) {
      if (previous !== sum) changed.push(file);
      continue;
    }
    try {
      await db.transaction(async (tx) => {
        // Brokers sharing one PostgreSQL must not apply the same file twice.
        await tx.lock('platform.migrations');
        const again = await tx.query('SELECT 1 FROM platform.migrations WHERE name = $1', [file]);
        if (again.rows.length > 0) return;
        await tx.exec(sql);
        await tx.query('INSERT INTO platform.migrations (name, checksum) VALUES ($1, $2)', [
          file,
          sum,
        ]);
        applied.push(file);
      });
    } catch (error) {
      throw new MigrationError(file, error);
    }
  }
  return { applied, changed };
}
