import { PlatformError } from '@platform/errors';
import type { FileGeneration } from '../files/file-holds.ts';
import type { FileStore } from '../files/file-store.ts';

/** Why a backup was taken. */
export type BackupKind = 'manual' | 'scheduled' | 'deployment';

/** What a backup's record says: written last, so a listed backup is always a whole one. */
export interface BackupRecord {
  readonly id: string;
  readonly appId: string;
  readonly kind: BackupKind;
  /** The database it was taken from, which decides the archive's format. */
  readonly engine: 'pglite' | 'postgres';
  /** ISO time of the snapshot. */
  readonly createdAt: string;
  /** Bytes of the archive as stored (PGlite's tarball gzipped). */
  readonly size: number;
  /** The platform schema's version in the archive: a restore runs the steps after it. */
  readonly platformSchemaVersion: number;
  /** Every file generation the database's rows referenced in the snapshot, as `[id, generation]`. */
  readonly files: readonly (readonly [string, number])[];
}

/** A backup as the owner API lists it (without its file list). */
export interface BackupInfo {
  readonly id: string;
  readonly kind: BackupKind;
  readonly engine: 'pglite' | 'postgres';
  readonly createdAt: string;
  readonly size: number;
  readonly files: number;
}

/** Per-app settings of the backups, kept beside them (they outlive a restore). */
export interface BackupSettings {
  /** Seconds between scheduled backups. */
  readonly intervalSeconds: number;
}

/** Set when the owner's account was deleted: every backup is erased by `eraseBy`. */
export interface BackupErasure {
  readonly eraseBy: string;
}

// Objects in the file store: a backup's archive is generation 1 of its id, its record generation
// 2; the settings and the erasure marker one object each. None matches a file id, so the files'
// sweep never touches them.
const ARCHIVE = 1;
const RECORD = 2;
const SETTINGS_ID = 'bak_settings';
const ERASURE_ID = 'bak_erasure';
const BACKUP_ID = /^bak_[0-9a-f]{24}$/;

/**
 * The backups of one app in the store its files use (a folder or an S3 bucket): the archive and
 * then its record, so a backup interrupted before its record never lists.
 */
export class BackupCatalog {
  readonly store: FileStore;

  constructor(store: FileStore) {
    this.store = store;
  }

  /** Stores the archive of backup `id` from `body`. */
  putArchive(id: string, body: AsyncIterable<Uint8Array>): Promise<void> {
    return this.store.put(id, ARCHIVE, body);
  }

  /** The archive of backup `id` as a stream, or `undefined` when it is gone. */
  archive(id: string) {
    return this.store.get(id, ARCHIVE);
  }

  /** Records a backup whose archive is stored: from now on it lists. */
  putRecord(record: BackupRecord): Promise<void> {
    return this.#putJson(record.id, RECORD, record);
  }

  /** The record of backup `id`; `BACKUP_NOT_FOUND` when there is none. */
  async get(id: string): Promise<BackupRecord> {
    const record = BACKUP_ID.test(id) ? await this.#getJson<BackupRecord>(id, RECORD) : undefined;
    if (record === undefined) {
      throw new PlatformError({
        code: 'BACKUP_NOT_FOUND',
        message: `No backup ${id} exists for this app; \`platform backups list\` shows them.`,
        details: { id },
      });
    }
    return record;
  }

  /** Every recorded backup, newest first. */
  async list(): Promise<BackupRecord[]> {
    const ids = new Set<string>();
    for await (const stored of this.store.list()) {
      if (stored.generation === RECORD && BACKUP_ID.test(stored.fileId)) ids.add(stored.fileId);
    }
    const records: BackupRecord[] = [];
    for (const id of ids) {
      const record = await this.#getJson<BackupRecord>(id, RECORD);
      if (record) records.push(record);
    }
    return records.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Ids whose archive is stored without a record: backups interrupted before they finished. */
  async unfinished(): Promise<string[]> {
    const seen = new Map<string, Set<number>>();
    for await (const stored of this.store.list()) {
      if (!BACKUP_ID.test(stored.fileId)) continue;
      const generations = seen.get(stored.fileId) ?? new Set();
      generations.add(stored.generation);
      seen.set(stored.fileId, generations);
    }
    return [...seen].filter(([, g]) => !g.has(RECORD)).map(([id]) => id);
  }

  /** Removes backup `id`: its record first, so it never lists without its archive. */
  async remove(id: string): Promise<void> {
    await this.store.removeGeneration(id, RECORD);
    await this.store.removeFile(id);
  }

  /**
   * True for an object the backups keep in the store (an archive, a record, the settings, the
   * erasure marker) rather than a file's generation.
   */
  static owns(fileId: string): boolean {
    return BACKUP_ID.test(fileId) || fileId === SETTINGS_ID || fileId === ERASURE_ID;
  }

  /** Removes the settings and the erasure marker: what is left once no backup remains. */
  async forget(): Promise<void> {
    await this.store.removeFile(SETTINGS_ID);
    await this.store.removeFile(ERASURE_ID);
  }

  /** The app's settings, `undefined` for the defaults. */
  settings(): Promise<BackupSettings | undefined> {
    return this.#getJson<BackupSettings>(SETTINGS_ID, 1);
  }

  putSettings(settings: BackupSettings): Promise<void> {
    return this.#putJson(SETTINGS_ID, 1, settings);
  }

  /** The erasure marker of a deleted owner's app, if any. */
  erasure(): Promise<BackupErasure | undefined> {
    return this.#getJson<BackupErasure>(ERASURE_ID, 1);
  }

  putErasure(erasure: BackupErasure): Promise<void> {
    return this.#putJson(ERASURE_ID, 1, erasure);
  }

  async #putJson(id: string, generation: number, value: unknown): Promise<void> {
    await this.store.put(id, generation, [Buffer.from(JSON.stringify(value))]);
  }

  async #getJson<T>(id: string, generation: number): Promise<T | undefined> {
    const body = await this.store.get(id, generation);
    if (body === undefined) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
  }
}

/** The listed form of a record. */
export const toInfo = (record: BackupRecord): BackupInfo => ({
  id: record.id,
  kind: record.kind,
  engine: record.engine,
  createdAt: record.createdAt,
  size: record.size,
  files: record.files.length,
});

/** The file generations of a record. */
export const generationsOf = (record: BackupRecord): FileGeneration[] =>
  record.files.map(([fileId, generation]) => ({ fileId, generation }));
