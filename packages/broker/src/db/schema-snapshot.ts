import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzip } from 'node:zlib';
import { PgliteDatabase, type PgliteDatabaseOptions } from './pglite-database.ts';
import {
  type PlatformSchemaReport,
  type SchemaStep,
  withPlatformSchema,
} from './platform-schema.ts';

/**
 * Where the snapshot of a fresh cluster with `steps` applied lives: beside the fresh-cluster
 * snapshot `base`, named by a hash of the steps, so a broker whose schema differs in any step
 * never loads another's.
 */
export function schemaSnapshotPath(base: string, steps: readonly SchemaStep[]): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(steps.map(({ version, name, sql }) => [version, name, sql])))
    .digest('hex')
    .slice(0, 16);
  return `${base.replace(/\.tar$/, '')}-schema-${hash}.tar`;
}

/** An embedded database opened with its platform schema up to date. */
export interface PgliteWithSchema {
  readonly db: PgliteDatabase;
  readonly platformSchema: PlatformSchemaReport;
}

/** Where {@link openPgliteWithSchema} finds its snapshot and says what takes long. */
export interface PgliteWithSchemaOptions extends PgliteDatabaseOptions {
  /** The fresh-cluster snapshot; the prepared ones live beside it ({@link schemaSnapshotPath}). */
  readonly snapshotPath: string;
  /**
   * The prepared snapshots the package ships ({@link installShippedSnapshot}).
   * @default {@link SHIPPED_SNAPSHOTS_DIR}
   */
  readonly shippedSnapshots?: string | undefined;
  /**
   * Told, before it begins, that a new database must be prepared here from nothing (initdb and
   * every step, several seconds; the result is kept for every later new database).
   */
  readonly onPreparing?: (() => void) | undefined;
}

/**
 * Opens PGlite and brings its platform schema up to `steps`. A new database starts from the
 * snapshot of a cluster that already has these steps when one exists (in the cache, or shipped
 * with the package and copied to the cache once), so it runs none of them (its report applies
 * nothing); otherwise from the fresh-cluster snapshot `snapshotPath`, and after running every
 * step it writes that prepared snapshot for the next new database. The database is closed again
 * when anything fails.
 */
export async function openPgliteWithSchema(
  options: PgliteWithSchemaOptions,
  steps: readonly SchemaStep[],
): Promise<PgliteWithSchema> {
  const prepared = schemaSnapshotPath(options.snapshotPath, steps);
  const isNew = options.dataDir === undefined || !existsSync(join(options.dataDir, 'PG_VERSION'));
  const hasPrepared =
    existsSync(prepared) ||
    (isNew &&
      (await installShippedSnapshot(prepared, options.shippedSnapshots ?? SHIPPED_SNAPSHOTS_DIR)));
  if (isNew && !hasPrepared) options.onPreparing?.();
  const db = await PgliteDatabase.open({
    ...options,
    snapshotPath: hasPrepared ? prepared : options.snapshotPath,
  });
  const { platformSchema } = await withPlatformSchema(db, steps);
  // Only a cluster that began empty here and took every step is the prepared state; an older
  // data directory adopted now holds its own rows.
  if (!hasPrepared && db.openInfo.how !== 'opened' && platformSchema.from === 0) {
    // Only a cache: a start that cannot write it (a read-only cache folder) goes on without.
    await db.writeSnapshot(prepared).catch(() => undefined);
    await pruneSchemaSnapshots(options.snapshotPath).catch(() => undefined);
  } else if (hasPrepared && db.openInfo.how === 'snapshot') {
    // Its modification time says when it was last used (see pruneSchemaSnapshots).
    const now = new Date();
    await utimes(prepared, now, now).catch(() => undefined);
  }
  return { db, platformSchema };
}

/**
 * The prepared snapshots made when the package is built (`scripts/ship-snapshots.ts`), in
 * `dist/snapshots`: `<name>.tar.gz` and `snapshots.json` naming each one's SHA-256. Run from the
 * sources, the same folder of the package is used when it was built; when it was not, or was
 * built for another schema (the names differ), each machine prepares its own.
 */
export const SHIPPED_SNAPSHOTS_DIR = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../../dist/snapshots/' : './snapshots/',
    import.meta.url,
  ),
);

/** The list of shipped snapshots: each file's name and the SHA-256 of its unpacked tar. */
export const SHIPPED_SNAPSHOTS_LIST = 'snapshots.json';

/**
 * Copies the shipped snapshot of the name of `prepared` into the cache at `prepared`, once its
 * unpacked bytes match the checksum the build wrote. False when the package ships none of that
 * name (a broker run from the sources, a snapshot base of another name) or it does not match (a
 * damaged install): the caller then prepares one as before.
 */
export async function installShippedSnapshot(prepared: string, shipped: string): Promise<boolean> {
  const name = basename(prepared);
  try {
    const list = JSON.parse(await readFile(join(shipped, SHIPPED_SNAPSHOTS_LIST), 'utf8')) as {
      snapshots?: Record<string, { sha256?: string }>;
    };
    const expected = list.snapshots?.[name]?.sha256;
    if (typeof expected !== 'string') return false;
    const packed = await readFile(join(shipped, `${name}.gz`));
    const tar = await new Promise<Buffer>((done, fail) =>
      gunzip(packed, (error, result) => (error ? fail(error) : done(result))),
    );
    if (createHash('sha256').update(tar).digest('hex') !== expected) return false;
    await mkdir(dirname(prepared), { recursive: true });
    // Another broker may copy the same snapshot: write aside, then rename atomically.
    const temp = `${prepared}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temp, tar);
    await rename(temp, prepared);
    return true;
  } catch {
    // Absent, unreadable or damaged: only a head start, so the caller prepares its own.
    return false;
  }
}

/** How many prepared snapshots of one fresh-cluster snapshot are kept, the latest used first. */
export const KEPT_SCHEMA_SNAPSHOTS = 3;

/** How long a prepared snapshot past the kept ones stays after its last use. */
const UNUSED_FOR_MS = 7 * 24 * 3_600_000;

/**
 * Removes the prepared snapshots beside `base` (one of about 26 MB for every platform schema a
 * broker of this machine ever used) past the {@link KEPT_SCHEMA_SNAPSHOTS} last used, once
 * unused for a week: brokers of several versions may share the cache folder, and one whose
 * snapshot was removed only prepares it again on its next new database.
 */
export async function pruneSchemaSnapshots(base: string, now = Date.now()): Promise<string[]> {
  const dir = dirname(base);
  const prefix = `${basename(base).replace(/\.tar$/, '')}-schema-`;
  const names = (await readdir(dir)).filter(
    (name) => name.startsWith(prefix) && /^[0-9a-f]{16}\.tar$/.test(name.slice(prefix.length)),
  );
  const used = await Promise.all(
    names.map(async (name) => ({
      path: join(dir, name),
      at: (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? now,
    })),
  );
  used.sort((a, b) => b.at - a.at);
  const removed = used
    .slice(KEPT_SCHEMA_SNAPSHOTS)
    .filter(({ at }) => now - at > UNUSED_FOR_MS)
    .map(({ path }) => path);
  await Promise.all(removed.map((path) => rm(path, { force: true })));
  return removed;
}
