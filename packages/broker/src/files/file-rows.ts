import { PlatformError } from '@platform/errors';
import type { RouteResponse, runtimeContract } from '@platform/schema/contract';
import type { Caller } from '../kernel/caller.ts';

type Contract = typeof runtimeContract;

/** Metadata of a managed file: the runtime contract's `fileInfoSchema`. */
export type FileInfo = Readonly<RouteResponse<Contract['filesInfo']>['file']>;

/** A row of `platform.files`, as the database answers it. */
export interface FileRow {
  id: string;
  owner_id: string | null;
  name: string;
  content_type: string;
  size: number;
  generation: number;
  created_at: Date;
  updated_at: Date;
}

/** What `newId('file')` makes; also keeps a discarded id from naming a path outside the folder. */
export const FILE_ID = /^file_[0-9a-f]{32}$/;

/** The metadata a caller sees of a file's row. */
export const toInfo = (row: FileRow): FileInfo => ({
  ref: row.id,
  id: row.id,
  name: row.name,
  contentType: row.content_type,
  size: Number(row.size),
  generation: row.generation,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** `FILE_NOT_FOUND` for `ref`. */
export const notFound = (ref: string): PlatformError =>
  new PlatformError({
    code: 'FILE_NOT_FOUND',
    message: 'No file with this reference exists.',
    details: { ref },
  });

/** Spec 5.1.5: in public apps, file writes require a user (`AUTH_REQUIRED` for anyone else). */
export function requireWriter(caller: Caller): void {
  if (caller.kind === 'anonymous') {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: 'Writing files needs a signed-in user.',
    });
  }
}

/** Only the uploader or the system may change or remove a file (`PERMISSION_DENIED`). */
export function requireOwner(caller: Caller, row: FileRow): void {
  if (caller.kind === 'system') return;
  if (caller.kind === 'user' && row.owner_id === caller.userId) return;
  throw new PlatformError({
    code: 'PERMISSION_DENIED',
    message: 'Only the user who uploaded a file (or a system Function) may change or remove it.',
  });
}
