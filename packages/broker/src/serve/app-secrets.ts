import { PlatformError } from '@platform/errors';
import { namingRules, reservedSecretPrefix } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import type { CredentialCipher } from '../integrations/credential-cipher.ts';
import type { Clock } from '../kernel/clock.ts';
import { requireDeclared, type SecretSource } from '../secrets/secret-store.ts';

/**
 * How long a node reads a deployed app's secrets from its memory before asking the central store
 * again: the bound on how late a node sees a value changed through another node when the
 * change's announcement did not reach it (its listening connection was down).
 */
export const SECRET_CACHE_MS = 1_000;

/** The largest secret value, in bytes of UTF-8. */
export const SECRET_VALUE_MAX_BYTES = 64 * 1024;

/**
 * The channel on which a change of an app's secrets is announced to every node on the central
 * store, its payload the app id: each node then drops what it holds of them.
 */
export const SECRETS_CHANNEL = 'platform_app_secrets';

/** A secret as the owner API lists it: its name and when it was last set, never its value. */
export interface SecretView {
  readonly name: string;
  readonly updatedAt: string;
}

/**
 * The secrets of `platform serve`'s deployed apps (docs/production.md, "Secrets"), in the central
 * store, so a value set through one node is read by every node. Each value is sealed with the
 * service's credential key (the {@link CredentialCipher} of connection credentials), bound to
 * its app and name. Write-only: {@link AppSecrets.list} answers names and times, and no method
 * answers a value but the {@link SecretSource} a deployed app's broker reads `ctx.secrets` from.
 */
export class AppSecrets {
  readonly #central: Database;
  readonly #cipher: CredentialCipher;
  readonly #clock: Clock;
  /** The sources this node's brokers read from, per app: dropped at a change. */
  readonly #watched = new Map<string, Set<CentralSecretSource>>();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: {
    readonly central: Database;
    readonly cipher: CredentialCipher;
    readonly clock: Clock;
  }) {
    this.#central = options.central;
    this.#cipher = options.cipher;
    this.#clock = options.clock;
  }

  /** Listens for changes made through other nodes, so they apply here at once. */
  async start(): Promise<void> {
    this.#unlisten = await this.#central.listen?.(SECRETS_CHANNEL, (appId) => this.#drop(appId));
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.#unlisten?.().catch(() => undefined);
  }

  /**
   * Sets secret `name` of `appId` to `value` (made or replaced). `INVALID_INPUT` for a name that
   * is not a secret name or is reserved, and for an empty value; `PAYLOAD_TOO_LARGE` above
   * {@link SECRET_VALUE_MAX_BYTES}. Neither message holds the value.
   */
  async set(appId: string, name: string, value: unknown): Promise<SecretView> {
    checkName(name);
    if (typeof value !== 'string' || value === '') {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `Give the value of ${name} as a non-empty string: { "value": "..." }.`,
        details: { field: 'value' },
      });
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > SECRET_VALUE_MAX_BYTES) {
      throw new PlatformError({
        code: 'PAYLOAD_TOO_LARGE',
        message: `The value of ${name} is ${bytes} bytes; a secret holds at most ${SECRET_VALUE_MAX_BYTES}.`,
        details: { field: 'value', limit: SECRET_VALUE_MAX_BYTES },
      });
    }
    const now = this.#clock.now();
    await this.#central.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO platform.app_secrets (app_id, name, sealed, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (app_id, name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at`,
        [appId, name, this.#cipher.seal(sealedFor(appId, name), { value }), now],
      );
      await tx.query('SELECT pg_notify($1, $2)', [SECRETS_CHANNEL, appId]);
    });
    this.#drop(appId);
    return { name, updatedAt: now.toISOString() };
  }

  /** The names of `appId`'s secrets with when each was last set, by name. */
  async list(appId: string): Promise<SecretView[]> {
    const { rows } = await this.#central.query<{ name: string; updated_at: Date | string }>(
      'SELECT name, updated_at FROM platform.app_secrets WHERE app_id = $1 ORDER BY name',
      [appId],
    );
    return rows.map((row) => ({
      name: row.name,
      updatedAt: new Date(row.updated_at).toISOString(),
    }));
  }

  /** Removes secret `name` of `appId`; `SECRET_NOT_SET` when it has no value. */
  async remove(appId: string, name: string): Promise<void> {
    checkName(name);
    const removed = await this.#central.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        'DELETE FROM platform.app_secrets WHERE app_id = $1 AND name = $2',
        [appId, name],
      );
      if (rowCount > 0) await tx.query('SELECT pg_notify($1, $2)', [SECRETS_CHANNEL, appId]);
      return rowCount > 0;
    });
    if (!removed) {
      throw new PlatformError({
        code: 'SECRET_NOT_SET',
        message: `${appId} has no secret ${name}.`,
        details: { name },
      });
    }
    this.#drop(appId);
  }

  /** Where the broker of a revision of `appId` reads its secrets. */
  source(appId: string): SecretSource {
    return new CentralSecretSource({
      read: () => this.#read(appId),
      watch: (source) => {
        let set = this.#watched.get(appId);
        if (set === undefined) {
          set = new Set();
          this.#watched.set(appId, set);
        }
        set.add(source);
        return () => {
          set.delete(source);
          if (set.size === 0) this.#watched.delete(appId);
        };
      },
    });
  }

  async #read(appId: string): Promise<Map<string, string>> {
    const { rows } = await this.#central.query<{ name: string; sealed: string }>(
      'SELECT name, sealed FROM platform.app_secrets WHERE app_id = $1',
      [appId],
    );
    const values = new Map<string, string>();
    for (const row of rows) {
      let opened: Record<string, string>;
      try {
        opened = this.#cipher.open(sealedFor(appId, row.name), row.sealed);
      } catch {
        // Names the key's setting, never the ciphertext or what it may hold.
        throw new PlatformError({
          code: 'INTERNAL',
          message: `The secret ${row.name} of ${appId} does not open with this node's credential key: every node needs the same PLATFORM_CREDENTIAL_KEY_FILE.`,
        });
      }
      if (typeof opened.value === 'string') values.set(row.name, opened.value);
    }
    return values;
  }

  #drop(appId: string): void {
    for (const source of this.#watched.get(appId) ?? []) source.drop();
  }
}

/** What the additional data of a sealed value binds it to: its app and its name. */
const sealedFor = (appId: string, name: string) => `app-secret\0${appId}\0${name}`;

function checkName(name: string): void {
  const rule = namingRules.secretName;
  if (!rule.pattern.test(name)) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `A secret name must ${rule.hint}.`,
      details: { field: 'name' },
    });
  }
  if (name.startsWith(reservedSecretPrefix)) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `Secret names starting with ${reservedSecretPrefix} are the platform's own.`,
      details: { field: 'name', name },
    });
  }
}

/**
 * One app's secrets as its broker reads them: from memory for {@link SECRET_CACHE_MS}, then
 * again from the central store (one read at a time); dropped at once when a change is announced.
 * Each read tells the listeners every value, before any is answered, so the redaction knows a
 * value before a Function can print it.
 */
class CentralSecretSource implements SecretSource {
  readonly #store: SecretStoreAccess;
  readonly #listeners: ((values: string[]) => void)[] = [];
  #cache: { readonly at: number; readonly values: Map<string, string> } | undefined;
  #reading:
    | { readonly generation: number; readonly values: Promise<Map<string, string>> }
    | undefined;
  /** Bumped by {@link drop}, so a read begun before a change is neither kept nor joined. */
  #generation = 0;

  constructor(store: SecretStoreAccess) {
    this.#store = store;
  }

  async get(name: string, declared: readonly string[]): Promise<string | null> {
    requireDeclared(name, declared);
    return (await this.#load()).get(name) ?? null;
  }

  async values(): Promise<string[]> {
    return [...(await this.#load()).values()];
  }

  onChange(listener: (values: string[]) => void): void {
    this.#listeners.push(listener);
  }

  watch(): () => void {
    return this.#store.watch(this);
  }

  /** Forgets what was read: the next read asks the central store. */
  drop(): void {
    this.#cache = undefined;
    this.#generation += 1;
  }

  #load(): Promise<Map<string, string>> {
    const cache = this.#cache;
    if (cache !== undefined && performance.now() - cache.at < SECRET_CACHE_MS) {
      return Promise.resolve(cache.values);
    }
    const generation = this.#generation;
    if (this.#reading?.generation === generation) return this.#reading.values;
    const at = performance.now();
    const values = (async () => {
      try {
        const read = await this.#store.read();
        for (const listener of this.#listeners) listener([...read.values()]);
        if (generation === this.#generation) this.#cache = { at, values: read };
        return read;
      } finally {
        if (this.#reading?.generation === generation) this.#reading = undefined;
      }
    })();
    this.#reading = { generation, values };
    return values;
  }
}

/** What a {@link CentralSecretSource} asks of its {@link AppSecrets}. */
interface SecretStoreAccess {
  readonly read: () => Promise<Map<string, string>>;
  readonly watch: (source: CentralSecretSource) => () => void;
}
