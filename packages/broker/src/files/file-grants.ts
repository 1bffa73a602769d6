import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { FileGrant, GrantedFile } from '../functions/invocation-tokens.ts';

/**
 * Checks `files.read` of an enqueue and pins each file's current content generation: 1 to 16
 * distinct files (`LIMIT_EXCEEDED`), each visible (`FILE_NOT_FOUND`), together at most
 * `limits.fileGrant.totalMaxBytes` (`LIMIT_EXCEEDED`). Repeated ids count once.
 */
export async function pinFileGrant(db: Database, read: readonly string[]): Promise<GrantedFile[]> {
  const ids = [...new Set(read)];
  const { minFiles, maxFiles, totalMaxBytes } = limits.fileGrant;
  if (ids.length < minFiles || ids.length > maxFiles) {
    throw new PlatformError({
      code: 'LIMIT_EXCEEDED',
      message: `files.read must name ${minFiles} to ${maxFiles} files; it names ${ids.length}.`,
      details: { field: 'files.read', min: minFiles, max: maxFiles },
    });
  }
  const { rows } = await db.query<{ id: string; generation: number; size: number | string }>(
    'SELECT id, generation, size FROM platform.files WHERE id = ANY($1::text[])',
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing !== undefined) {
    throw new PlatformError({
      code: 'FILE_NOT_FOUND',
      message: 'A file named in files.read does not exist.',
      details: { ref: missing },
    });
  }
  const total = rows.reduce((sum, r) => sum + Number(r.size), 0);
  if (total > totalMaxBytes) {
    throw new PlatformError({
      code: 'LIMIT_EXCEEDED',
      message: `The files in files.read hold ${total} bytes together; at most ${totalMaxBytes} may be granted.`,
      details: { field: 'files.read', size: total, limit: totalMaxBytes },
    });
  }
  return ids.map((id) => ({ id, generation: (byId.get(id) as { generation: number }).generation }));
}

/**
 * Whether the user who delegated a grant may still use the app (and so its files): the broker
 * answers from its accounts and private-app grants.
 */
export type DelegatorAccess = (userId: string) => Promise<boolean>;

/**
 * Checks a consumer's read of `fileId` against its job's grant. Files outside the grant are not
 * governed by it (the file rules of the broker apply). The grant must not have expired, and the
 * user who delegated it must not have lost access to the app (`mayStillRead`; both
 * `PERMISSION_DENIED`); a granted file must still exist (`FILE_NOT_FOUND`) and be at the pinned
 * generation: any replace, even with identical bytes, gives `FILE_INPUT_CHANGED`.
 */
export async function checkGrantedRead(
  db: Database,
  grant: FileGrant,
  fileId: string,
  now: Date,
  mayStillRead?: DelegatorAccess,
): Promise<void> {
  const pinned = grant.files.find((f) => f.id === fileId);
  if (!pinned) return;
  if (now.getTime() > grant.expiresAt.getTime()) {
    throw new PlatformError({
      code: 'PERMISSION_DENIED',
      message: 'The delegated file grant of this job has expired (grants last 14 days).',
      details: { ref: fileId, reason: 'expired' },
    });
  }
  // Asked at every read, not once per attempt: access revoked while a consumer runs ends its
  // next read, and a delegation is never stronger than the delegator's own access.
  if (grant.grantedBy !== undefined && mayStillRead && !(await mayStillRead(grant.grantedBy))) {
    throw new PlatformError({
      code: 'PERMISSION_DENIED',
      message:
        'The user who delegated this file to the job no longer has access to the app, so the grant has ended.',
      details: { ref: fileId, reason: 'access_lost' },
    });
  }
  const { rows } = await db.query<{ generation: number }>(
    'SELECT generation FROM platform.files WHERE id = $1',
    [fileId],
  );
  const current = rows[0];
  if (!current) {
    throw new PlatformError({
      code: 'FILE_NOT_FOUND',
      message: 'A file delegated to this job was deleted.',
      details: { ref: fileId },
    });
  }
  if (current.generation !== pinned.generation) {
    throw new PlatformError({
      code: 'FILE_INPUT_CHANGED',
      message: 'A file delegated to this job was replaced after the job was enqueued.',
      details: {
        ref: fileId,
        grantedGeneration: pinned.generation,
        currentGeneration: current.generation,
      },
    });
  }
}
