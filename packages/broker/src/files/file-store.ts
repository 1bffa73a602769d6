import type { Readable } from 'node:stream';
import { PlatformError } from '@platform/errors';

/** One stored generation, as a store lists it for the sweep. */
export interface StoredGeneration {
  readonly fileId: string;
  readonly generation: number;
  /** When its bytes were written: the sweep leaves recent ones to writes still in flight. */
  readonly modifiedAt: Date;
}

/**
 * Where the bytes of managed files live, one object per generation (`<fileId>/<generation>`).
 * The database holds the rows; a store only keeps bytes. Every write is all-or-nothing: a
 * generation is visible under its name only once all of its bytes are stored, so a row never
 * points at half a file. Two stores exist: the local folder (`FolderFileStore`, the default)
 * and S3-compatible object storage (`S3FileStore`); `FileService` uses either through this.
 */
export interface FileStore {
  /** Where the bytes go, for logs (never a credential): `folder <path>`, `s3 <bucket>/<prefix>`. */
  readonly description: string;
  /**
   * Stores `body` as `fileId`'s `generation`, reading it as it comes (never the whole file in
   * memory). An error the body throws (a size limit) is thrown unchanged after nothing was
   * kept; a store that cannot take the bytes throws the retryable `STORAGE_UNAVAILABLE`.
   */
  put(
    fileId: string,
    generation: number,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<void>;
  /**
   * The bytes of one generation as a stream, or `undefined` when it is not stored. A store that
   * cannot be reached throws `STORAGE_UNAVAILABLE`.
   */
  get(fileId: string, generation: number): Promise<Readable | undefined>;
  /** Deletes one generation (missing is fine). */
  removeGeneration(fileId: string, generation: number): Promise<void>;
  /** Deletes every generation of a file (missing is fine). */
  removeFile(fileId: string): Promise<void>;
  /** Every stored generation, for the sweep of bytes whose row never came or is gone. */
  list(): AsyncIterable<StoredGeneration>;
  /**
   * Removes what interrupted writes left behind (temp files, unfinished multipart uploads)
   * untouched for `olderThanMs`, so that writes in flight on another broker keep theirs.
   * Resolves to how many were removed.
   */
  sweep(olderThanMs: number): Promise<number>;
  /** Resolves when the store can be used now; `STORAGE_UNAVAILABLE` with the reason when not. */
  check(): Promise<void>;
  /** Releases connections. */
  close(): void;
}

/**
 * The retryable `STORAGE_UNAVAILABLE`: "The file could not be `action`: `why`." `reason` is a
 * short code (a system error code, an S3 error name), never a message that could hold an
 * address or a key.
 */
export function storageUnavailable(
  action: 'stored' | 'read' | 'removed',
  why: string,
  reason: string,
  cause?: unknown,
): PlatformError {
  const tail = action === 'stored' ? ' Nothing was kept; try again later.' : ' Try again later.';
  return new PlatformError({
    code: 'STORAGE_UNAVAILABLE',
    message: `The file could not be ${action}: ${why}.${tail}`,
    details: { reason },
    cause,
  });
}
