import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { checkManifest, formatDiagnostic, type OrganisationApp } from '@platform/schema/manifest';
import type { Hono } from 'hono';
import { platformSchema } from '../app/platform-schema.ts';
import { backupBeforeMigrations } from '../backups/backup-service.ts';
import type { Database } from '../db/database.ts';
import { appDatabaseName, ensureDatabase } from '../db/database-per-app.ts';
import { applyMigrationsTogether, MigrationError } from '../db/migrations.ts';
import { withPlatformSchema } from '../db/platform-schema.ts';
import { PostgresDatabase } from '../db/postgres-database.ts';
import {
  DEPLOYMENT_INDEX,
  type DeploymentContents,
  readDeployment,
  writeDeployment,
} from '../deploy/archive.ts';
import { openFileStore } from '../files/files-feature.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { deploymentsPath } from '../http/paths.ts';
import type { Clock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import { ACTIVATIONS_CHANNEL, type DeployedApps, manifestOf } from './deployed-apps.ts';
import type { OwnerAccess } from './owner-access.ts';
import {
  pruneRevisions,
  REVISIONS_KEPT,
  removeRevisionFiles,
  revisionArchive,
  revisionDir,
} from './revision-folders.ts';
import type { ServeSettings } from './serve-settings.ts';

/** One deployment as the owner API shows it. */
export interface DeploymentView {
  readonly id: string;
  readonly appId: string;
  /** SHA-256 of the archive's index, which lists every file's SHA-256. */
  readonly digest: string;
  readonly migrations: readonly string[];
  readonly functions: readonly string[];
  readonly archiveBytes: number;
  readonly deployedBy: string;
  readonly createdAt: string;
  /** Whether this revision serves the app now. */
  readonly active: boolean;
}

interface DeploymentRow {
  id: string;
  app_id: string;
  digest: string;
  migrations: string[];
  functions: string[];
  archive_bytes: string | number;
  deployed_by: string;
  created_at: Date | string;
  active: boolean;
}

const toView = (row: DeploymentRow): DeploymentView => ({
  id: row.id,
  appId: row.app_id,
  digest: row.digest,
  migrations: row.migrations,
  functions: row.functions,
  archiveBytes: Number(row.archive_bytes),
  deployedBy: row.deployed_by,
  createdAt: new Date(row.created_at).toISOString(),
  active: row.active,
});

/** What the deployment routes need. */
export interface DeploymentRoutesOptions {
  readonly settings: ServeSettings;
  readonly central: Database;
  readonly clock: Clock;
  readonly apps: DeployedApps;
  /** The node's checks of the owner API's caller. */
  readonly access: OwnerAccess;
}

/**
 * The deployments of the owner API on `{base_url}` (docs/production.md): `POST` an archive of
 * `platform deploy`, `GET` the list, `POST .../{id}/activate` (rollback). Each needs a member's
 * account credential (`platform login`): deploying and activating need Edit on the app (its
 * owner or editors); the first deployment of an app id the organisation does not have yet
 * needs an organisation administrator, who becomes the app's owner. The list needs Edit or
 * Administer.
 */
export function mountDeploymentRoutes(
  app: Hono<BrokerEnv>,
  options: DeploymentRoutesOptions,
): void {
  const { central, settings, apps } = options;
  const { authority, caller, appIdOf, ownerOf, denied } = options.access;
  const queues = new Map<string, Promise<unknown>>();
  // One deployment or activation of an app at a time, across every node on the central store:
  // a session-level advisory lock on the app, held on a connection of its own for the whole
  // deployment (migrations included) without keeping a transaction open. The queue in front
  // keeps a node's own waiters from each holding a connection.
  const serially = <T>(appId: string, work: () => Promise<T>): Promise<T> => {
    const locked = () =>
      central.session(async (session) => {
        await session.query('SELECT pg_advisory_lock(hashtext($1))', [deploymentLock(appId)]);
        try {
          return await work();
        } finally {
          await session.query('SELECT pg_advisory_unlock(hashtext($1))', [deploymentLock(appId)]);
        }
      });
    const next = (queues.get(appId) ?? Promise.resolve()).catch(() => undefined).then(locked);
    queues.set(appId, next);
    return next;
  };

  /** Whether `accountId` may deploy `appId`; `true` as `creates` when it is a new app. */
  const requireEdit = async (appId: string, accountId: string): Promise<{ creates: boolean }> => {
    const owner = await ownerOf(appId);
    if (owner === undefined || owner === null) {
      if (await authority.isAdministrator(accountId)) return { creates: true };
      throw denied(
        `The organisation has no app "${appId}" yet; only an organisation administrator creates an app, with its first deployment.`,
        appId,
      );
    }
    if (await authority.mayEdit(appId, accountId)) return { creates: false };
    throw denied(
      `Only the owner and the editors of "${appId}" may deploy it or change its active revision.`,
      appId,
    );
  };

  const list = async (appId: string): Promise<DeploymentView[]> => {
    const { rows } = await central.query<DeploymentRow>(
      `SELECT d.id, d.app_id, d.digest, d.migrations, d.functions, d.archive_bytes,
              d.deployed_by::text AS deployed_by, d.created_at,
              (a.deployment_id IS NOT NULL) AS active
         FROM platform.deployments d
         LEFT JOIN platform.active_deployments a ON a.deployment_id = d.id
        WHERE d.app_id = $1 ORDER BY d.created_at DESC, d.id`,
      [appId],
    );
    return rows.map(toView);
  };
  const one = async (appId: string, id: string): Promise<DeploymentView> => {
    const found = (await list(appId)).find((view) => view.id === id);
    if (found === undefined) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `"${appId}" has no deployment "${id}"; platform deployments list names them.`,
        details: { appId, deployment: id },
      });
    }
    return found;
  };
  // The record and its announcement commit together: every other node, on the notification,
  // reads the row and starts the same revision.
  const markActive = (appId: string, id: string, accountId: string) =>
    central.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO platform.active_deployments (app_id, deployment_id, activated_by, activated_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (app_id) DO UPDATE SET deployment_id = EXCLUDED.deployment_id,
           activated_by = EXCLUDED.activated_by, activated_at = EXCLUDED.activated_at`,
        [appId, id, accountId, options.clock.now()],
      );
      await tx.query('SELECT pg_notify($1, $2)', [ACTIVATIONS_CHANNEL, appId]);
    });

  app.get(deploymentsPath, async (c) => {
    const accountId = await caller(c);
    const appId = appIdOf(c);
    const owner = await ownerOf(appId);
    const allowed =
      owner !== undefined &&
      ((await authority.mayEdit(appId, accountId)) ||
        (await authority.mayAdminister(appId, accountId)));
    if (!allowed) {
      throw denied(`Only those who edit or administer "${appId}" may list its deployments.`, appId);
    }
    return c.json({ deployments: await list(appId) });
  });

  app.post(deploymentsPath, async (c) => {
    const accountId = await caller(c);
    const appId = appIdOf(c);
    await requireEdit(appId, accountId);
    const archive = await readBounded(c.req.raw);
    const contents = await readDeployment(archive);
    const view = await serially(appId, async () => {
      const { creates } = await requireEdit(appId, accountId);
      return deploy(appId, accountId, creates, contents, archive);
    });
    return c.json({ deployment: view }, 201);
  });

  app.post(`${deploymentsPath}/:deploymentId/activate`, async (c) => {
    const accountId = await caller(c);
    const appId = appIdOf(c);
    const id = c.req.param('deploymentId') ?? '';
    const view = await serially(appId, async () => {
      await requireEdit(appId, accountId);
      await one(appId, id);
      // The revision's code only: its migrations ran when it was deployed (forward-only).
      await apps.activate(appId, id, () => markActive(appId, id, accountId));
      return one(appId, id);
    });
    return c.json({ deployment: view });
  });

  const deploy = async (
    appId: string,
    accountId: string,
    creates: boolean,
    contents: DeploymentContents,
    archive: Uint8Array,
  ): Promise<DeploymentView> => {
    const manifestText = Buffer.from(contents.files.get('platform.yaml') ?? '').toString('utf8');
    await validate(appId, manifestText, contents);
    const manifest = manifestOf(manifestText);
    const id = newId('deployment');
    const dir = revisionDir(settings.filesDir, appId, id);
    // Written before the central store lists it: no sweep of this node may take it meanwhile.
    const written = apps.keepFolder(id);
    try {
      const migrations = [...contents.files]
        .filter(([path]) => path.startsWith('migrations/'))
        .map(([path, bytes]) => ({
          name: path.slice('migrations/'.length),
          sql: Buffer.from(bytes).toString('utf8'),
        }));
      await writeDeployment(contents, dir);
      await writeFile(revisionArchive(settings.filesDir, appId, id), archive, { mode: 0o600 });
      try {
        await migrate(appId, migrations);
        await central.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO platform.apps (app_id, owner_account_id) VALUES ($1, $2)
           ON CONFLICT (app_id) DO UPDATE
             SET owner_account_id = COALESCE(platform.apps.owner_account_id, EXCLUDED.owner_account_id)`,
            [appId, creates ? accountId : null],
          );
          await tx.query(
            `INSERT INTO platform.deployments
             (id, app_id, digest, manifest, migrations, functions, archive_bytes, deployed_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [
              id,
              appId,
              contents.digest,
              manifestText,
              migrations.map((m) => m.name).sort(),
              manifest.functions.map((fn) => fn.name),
              archive.byteLength,
              accountId,
              options.clock.now(),
            ],
          );
          await tx.query(
            'INSERT INTO platform.deployment_archives (deployment_id, archive) VALUES ($1, $2)',
            [id, Buffer.from(archive)],
          );
        });
      } catch (error) {
        await removeRevisionFiles(settings.filesDir, appId, id);
        throw error;
      }
      const replaced = apps.active(appId);
      await apps.activate(appId, id, () => markActive(appId, id, accountId));
      // Old revisions go, so the files folder does not grow with every deployment; a failure to
      // remove one leaves it for the next deployment and fails nothing.
      await pruneRevisions({
        central,
        filesDir: settings.filesDir,
        appId,
        keep: REVISIONS_KEPT,
        protect: replaced === undefined ? [id] : [id, replaced],
      }).catch(() => undefined);
      return one(appId, id);
    } finally {
      written();
    }
  };

  /** The checks of `platform validate`, with the organisation's other active apps. */
  const validate = async (appId: string, text: string, contents: DeploymentContents) => {
    const { rows } = await central.query<{ app_id: string; manifest: string }>(
      `SELECT d.app_id, d.manifest FROM platform.active_deployments a
         JOIN platform.deployments d ON d.id = a.deployment_id WHERE a.app_id <> $1`,
      [appId],
    );
    const organisation: OrganisationApp[] = rows.map((row) => ({
      name: row.app_id,
      manifest: manifestOf(row.manifest),
    }));
    // No file host: the sources stayed on the developer's machine, where platform deploy
    // checked them and their imports; here each Function's bundle must be in the archive.
    const result = await checkManifest(text, {
      file: 'platform.yaml',
      appDir: '.',
      organisation: { apps: organisation },
    });
    const errors = [...result.errors];
    if (result.manifest !== undefined) {
      for (const fn of result.manifest.functions) {
        if (!contents.files.has(`functions/${fn.name}.js`)) {
          errors.push({
            code: 'FUNCTION_ENTRYPOINT_MISSING',
            message: `The archive has no bundle functions/${fn.name}.js for Function "${fn.name}"; build it with platform deploy.`,
            path: '',
            file: DEPLOYMENT_INDEX,
            line: 0,
            column: 0,
            severity: 'error',
          });
        }
      }
    }
    if (errors.length > 0 || result.manifest === undefined) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `The deployment's platform.yaml has ${errors.length} error(s); nothing changed:\n${errors
          .map((d) => formatDiagnostic(d, d.file))
          .join('\n')}`,
        details: { errors: errors.map((d) => ({ ...d })) },
      });
    }
  };

  /** The revision's new migrations, together, before it goes live. */
  const migrate = async (appId: string, migrations: { name: string; sql: string }[]) => {
    const url = await ensureDatabase(settings.databaseUrl, appDatabaseName(appId));
    const { db } = await withPlatformSchema(await PostgresDatabase.connect(url, 2), platformSchema);
    try {
      // A deployment that runs a new migration is preceded by a backup, in the app's file store.
      const store = openFileStore(
        settings.objectStorage
          ? { kind: 's3', ...settings.objectStorage }
          : { kind: 'folder', dir: join(settings.filesDir, 'files', appId) },
        { appId, stateDir: join(settings.filesDir, 'backups', appId) },
      );
      try {
        await backupBeforeMigrations(
          {
            appId,
            db,
            store,
            stateDir: join(settings.filesDir, 'backups', appId),
            platformSchema,
            clock: options.clock,
          },
          migrations,
        );
      } finally {
        store.close();
      }
      await applyMigrationsTogether(db, migrations);
    } catch (error) {
      if (!(error instanceof MigrationError)) throw error;
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `${error.message}. Nothing changed: the migrations of this deployment were rolled back and the active revision still serves.`,
        details: {
          file: `migrations/${error.file}`,
          ...(error.line === undefined ? {} : { line: error.line }),
          ...(error.sqlState === undefined ? {} : { sqlState: error.sqlState }),
        },
      });
    } finally {
      await db.close();
    }
  };
}

/**
 * The advisory lock (`pg_advisory_lock(hashtext(…))` on the central store) under which an app's
 * deployments, activations and the sweep of its deleted state run one at a time.
 */
export const deploymentLock = (appId: string): string => `platform.deployments/${appId}`;

/** The request body, refused with `PAYLOAD_TOO_LARGE` as soon as it passes the archive limit. */
async function readBounded(request: Request): Promise<Uint8Array> {
  const max = limits.deployment.archiveMaxBytes;
  const tooLarge = () =>
    new PlatformError({
      code: 'PAYLOAD_TOO_LARGE',
      message: `A deployment archive may be at most ${max} bytes (limits.deployment.archiveMaxBytes).`,
      details: { limit: max },
    });
  if (Number(request.headers.get('content-length') ?? 0) > max) throw tooLarge();
  if (request.body === null) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message:
        'The deployment archive is missing: send the gzip tar of platform deploy as the body.',
    });
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > max) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
