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
  /** The line of the file PostgreSQL pointed at, when it pointed at one. */
  readonly line: number | undefined;
  /** PostgreSQL's SQLSTATE of the failure, when there is one. */
  readonly sqlState: string | undefined;

  constructor(file: string, cause: unknown, sql?: string) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const line = sql === undefined ? undefined : errorLine(sql, cause);
    super(`Migration ${file}${line === undefined ? '' : `:${line}`} failed: ${reason}`, { cause });
    this.file = file;
    this.line = line;
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  }
}

/** The 1-based line of `sql` at PostgreSQL's error position (a 1-based character index). */
function errorLine(sql: string, cause: unknown): number | undefined {
  const position = Number((cause as { position?: unknown } | undefined)?.position);
  if (!Number.isInteger(position) || position < 1) return undefined;
  return [...sql].slice(0, position - 1).filter((char) => char === '\n').length + 1;
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
      throw new MigrationError(file, error, sql);
    }
  }
  return { applied, changed };
}

/** One migration file: its name inside `migrations/` and its SQL. */
export interface MigrationFile {
  readonly name: string;
  readonly sql: string;
}

/**
 * Applies the files of `migrations` not applied yet, in name order, all in ONE transaction
 * under the migrations lock (a deployment's migrations: all of them or none). A failing file
 * rolls every file of this run back and throws {@link MigrationError} with its file and, when
 * PostgreSQL names a position, its line. A file applied earlier whose content changed is
 * reported in `changed`, never re-applied.
 */
export async function applyMigrationsTogether(
  db: Database,
  migrations: readonly MigrationFile[],
): Promise<MigrationReport> {
  const files = [...migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const applied: string[] = [];
  const changed: string[] = [];
  await db.transaction(async (tx) => {
    await tx.lock('platform.migrations');
    const { rows } = await tx.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM platform.migrations',
    );
    const done = new Map(rows.map((row) => [row.name, row.checksum]));
    for (const file of files) {
      const sum = checksum(file.sql);
      const previous = done.get(file.name);
      if (previous !== undefined) {
        if (previous !== sum) changed.push(file.name);
        continue;
      }
      try {
        await tx.exec(file.sql);
      } catch (error) {
        throw new MigrationError(file.name, error, file.sql);
      }
      await tx.query('INSERT INTO platform.migrations (name, checksum) VALUES ($1, $2)', [
        file.name,
        sum,
      ]);
      applied.push(file.name);
    }
  });
  return { applied, changed };
}
