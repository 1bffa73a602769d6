import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
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

/**
 * Opens PGlite and brings its platform schema up to `steps`. A new database starts from the
 * snapshot of a cluster that already has these steps when one exists, so it runs none of them
 * (its report applies nothing); otherwise from the fresh-cluster snapshot `snapshotPath`, and
 * after running every step it writes that prepared snapshot for the next new database. The
 * database is closed again when anything fails.
 */
export async function openPgliteWithSchema(
  options: PgliteDatabaseOptions & { readonly snapshotPath: string },
  steps: readonly SchemaStep[],
): Promise<PgliteWithSchema> {
  const prepared = schemaSnapshotPath(options.snapshotPath, steps);
  const hasPrepared = existsSync(prepared);
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
  }
  return { db, platformSchema };
}
