/**
 * The messages between the broker's HTTP thread and the worker thread that owns PGlite.
 * Only plain, structured-clone-able data crosses the boundary.
 */

/** What the worker is started with (`workerData`). */
export interface PgliteWorkerOptions {
  /** Data directory on disk; `undefined` keeps the database in memory (tests). */
  readonly dataDir: string | undefined;
  /**
   * A `dumpDataDir` tarball of a freshly initialised cluster. When `dataDir` is empty and the
   * file exists it is loaded instead of running initdb (~0.3 s instead of ~3-4 s); when it does
   * not exist, the worker writes it after its own initdb so the next new app starts fast.
   */
  readonly snapshotPath: string | undefined;
  /** Load the pgvector extension bundle. */
  readonly vector: boolean;
  /** PostgreSQL's buffer cache (`shared_buffers`), in MB. */
  readonly bufferCacheMb: number;
  /** PGlite's programs, compiled once by the process (`pglite-modules.ts`). */
  readonly modules: { readonly pglite: WebAssembly.Module; readonly initdb: WebAssembly.Module };
}

/** A request from the HTTP thread. */
export type PgliteRequest =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly sql: string;
      readonly params: readonly unknown[];
    }
  | { readonly id: number; readonly op: 'exec'; readonly sql: string }
  /** `LISTEN channel`: each notification then comes back as a `notification` message. */
  | { readonly id: number; readonly op: 'listen'; readonly channel: string }
  /** Writes a `dumpDataDir` tarball of the database as it is now to `path` (atomically). */
  | { readonly id: number; readonly op: 'snapshot'; readonly path: string }
  | { readonly id: number; readonly op: 'close' };

/** A PostgreSQL or worker error, flattened for the trip back. */
export interface PgliteErrorData {
  readonly message: string;
  readonly code?: string | undefined;
  readonly detail?: string | undefined;
  readonly constraint?: string | undefined;
  readonly table?: string | undefined;
  readonly column?: string | undefined;
}

/** How the worker opened the database, for logs and benchmarks. */
export interface PgliteOpenInfo {
  /** `opened` an existing directory, `snapshot` loaded the tarball, `initdb` created a cluster. */
  readonly how: 'opened' | 'snapshot' | 'initdb';
  readonly milliseconds: number;
}

/** A message from the worker. */
export type PgliteResponse =
  | { readonly type: 'ready'; readonly info: PgliteOpenInfo }
  | { readonly type: 'failed'; readonly error: PgliteErrorData }
  | {
      readonly type: 'result';
      readonly id: number;
      readonly rows: Record<string, unknown>[];
      readonly rowCount: number;
    }
  | { readonly type: 'error'; readonly id: number; readonly error: PgliteErrorData }
  /** A `NOTIFY` on a channel the broker listens to (delivered after its transaction commits). */
  | { readonly type: 'notification'; readonly channel: string; readonly payload: string };
