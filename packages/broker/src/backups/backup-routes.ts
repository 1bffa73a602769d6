import { PlatformError } from '@platform/errors';
import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { isUnder, ownerApiPaths } from '../http/paths.ts';
import type { BackupKind } from './backup-catalog.ts';
import type { BackupService } from './backup-service.ts';

/**
 * While a restore replaces the database, every request but the backups' own answers
 * `APP_RESTORING` (503, retryable): the app is briefly unavailable, with a clear reason, rather
 * than answering from a database that is being swapped.
 */
export function mountRestoringGate(app: Hono<BrokerEnv>, backups: BackupService): void {
  app.use('*', async (c, next) => {
    if (backups.restoring && !isUnder(c.req.path, backupsPathOf(c.req.path))) {
      throw new PlatformError({
        code: 'APP_RESTORING',
        message: "The app's database is being restored from a backup; try again in a moment.",
      });
    }
    await next();
  });
}

// `/v1/apps/<id>/backups` of a path, or a path nothing is under.
const backupsPathOf = (path: string): string => {
  const match = /^\/v1\/apps\/[^/]+\/backups/.exec(path);
  return match ? match[0] : '\0';
};

/**
 * The owner API of backups (`ownerApiPaths.backups`): list, take, restore, remove, and the
 * schedule. Under the control plane, so only the owner, an administrator or the developer's dev
 * token reach it; an app access token is refused before it (spec 2.2).
 */
export function mountBackupRoutes(
  app: Hono<BrokerEnv>,
  services: { appId: string; backups: BackupService },
): void {
  const { backups } = services;
  const base = ownerApiPaths.backups;
  scopeToApp(app, services.appId, [base]);
  // Only the app's owner or an administrator manages backups: an agent reaches list and take
  // (control-plane admission) only when its account owns the app.
  app.use(base, async (c, next) => {
    const agent = c.get('agent');
    if (agent !== undefined && !agent.owns) {
      throw new PlatformError({
        code: 'PERMISSION_DENIED',
        message: `Only an agent of ${services.appId}'s owner lists or takes its backups.`,
        details: { rule: 'agent-exact-app-owner' },
      });
    }
    await next();
  });
  app.get(base, async (c) => c.json({ backups: await backups.list() }));
  app.post(base, async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { kind?: unknown };
    const kind: BackupKind = body.kind === 'deployment' ? 'deployment' : 'manual';
    return c.json({ backup: await backups.create(kind) }, 201);
  });
  app.put(`${base}/settings`, async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { intervalSeconds?: unknown };
    await backups.setInterval(Number(body.intervalSeconds));
    return c.json({ intervalSeconds: Number(body.intervalSeconds) });
  });
  app.post(`${base}/:backupId/restore`, async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { to?: unknown };
    if (body.to !== undefined) {
      // Into a new app beside the live one, which stays as it is.
      if (typeof body.to !== 'string') {
        throw new PlatformError({
          code: 'INVALID_INPUT',
          message: '`to` is the id of the new app to restore the backup into.',
          details: { field: 'to' },
        });
      }
      const { backup, app: made } = await backups.restoreTo(c.req.param('backupId'), body.to);
      return c.json({ restored: backup, app: made }, 201);
    }
    return c.json({ restored: await backups.restore(c.req.param('backupId')) });
  });
  app.delete(`${base}/:backupId`, async (c) => {
    await backups.remove(c.req.param('backupId'));
    return c.json({ removed: c.req.param('backupId') });
  });
}
