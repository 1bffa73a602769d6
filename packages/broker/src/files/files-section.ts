import { PlatformError } from '@platform/errors';
import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';
import type { FileService } from './file-service.ts';

/**
 * The console's Files: the app's managed files, newest first, with name, type, size, the user
 * who uploaded each and when; never their contents (a file is read through the files API as
 * its callers read it).
 */
export const filesSection: DashboardSection = {
  group: 'files',
  id: 'files-section',
  title: 'Files',
  api: { files: ownerApiPaths.files },
  script: 'files/files-section-client.ts',
  html: `<p class="muted" id="files-count" role="status"></p>
<table id="files"><thead><tr><th>Uploaded</th><th>Name</th><th>Type</th><th>Size</th><th>Owner</th><th>Generation</th><th>Id</th></tr></thead><tbody></tbody></table>
<div class="pager"><button type="button" id="files-prev">Previous</button><button type="button" id="files-next">Next</button></div>`,
};

const bound = (value: string | undefined, fallback: number, max: number, field: string) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new PlatformError({
      code: 'INVALID_REQUEST',
      message: `${field} must be a whole number from 0 to ${max}.`,
      details: { field },
    });
  }
  return n;
};

/**
 * `GET /v1/apps/:appId/files?limit=&offset=` on the owner API: `{ files, total }`, newest first,
 * each the file's metadata with `ownerId` (the uploading user, `null` for the system), never
 * its contents; `limit` 1..100 (default 25).
 */
export function mountFileListingRoute(
  app: Hono<BrokerEnv>,
  services: { appId: string; files: FileService },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.files]);
  app.get(ownerApiPaths.files, async (c) => {
    const limit = Math.max(1, bound(c.req.query('limit'), 25, 100, 'limit'));
    const offset = bound(c.req.query('offset'), 0, 1_000_000, 'offset');
    return c.json(await services.files.listForOwner(limit, offset));
  });
}
