import { watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { PlatformError } from '@platform/errors';

const NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Where a broker's secret values come from: the app folder's secrets file under `platform dev`
 * ({@link SecretStore}), the central store for a deployed app of `platform serve`. Values are
 * never logged or put into errors; {@link SecretSource.onChange} lets the log sink redact them.
 */
export interface SecretSource {
  /**
   * The value of `name`, or `null` when it is declared but has no value. An undeclared name is
   * refused with `SECRET_NOT_DECLARED`, whether or not a value is stored.
   */
  get(name: string, declared: readonly string[]): Promise<string | null>;
  /** Every value currently set (for redaction only; never print them). */
  values(): Promise<string[]>;
  /** Calls `listener` with every value set each time the values are read anew. */
  onChange(listener: (values: string[]) => void): void;
  /** Follows changes until the answer is called (the broker's close calls it). */
  watch(): () => void;
}

/** `SECRET_NOT_DECLARED` unless `declared` names `name`; the message never holds a value. */
export function requireDeclared(name: string, declared: readonly string[]): void {
  if (declared.includes(name)) return;
  throw new PlatformError({
    code: 'SECRET_NOT_DECLARED',
    message: `Secret ${NAME.test(name) ? name : '(invalid name)'} is not declared in platform.yaml.`,
    details: NAME.test(name) ? { name } : {},
  });
}

/**
 * Secret values for local development, read from `<appDir>/.platform/secrets.json`: a JSON
 * object of `"NAME": "value"` strings. The whole `.platform/` folder is git-ignored (the broker
 * writes a `.gitignore` with `*` into it), so values never end up in the app's repository.
 * Only names the manifest declares are readable; values are never logged or put into errors,
 * and {@link SecretStore.values} lets the log sink redact them.
 *
 * @example
 * ```ts
 * const secrets = new SecretStore('.platform/secrets.json');
 * await secrets.get('STRIPE_KEY', ['STRIPE_KEY']); // 'sk_test_...' or null when unset
 * ```
 */
export class SecretStore implements SecretSource {
  readonly path: string;
  #cache: { mtimeMs: number; values: Map<string, string> } | undefined;
  readonly #listeners: ((values: string[]) => void)[] = [];

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The value of `name`, or `null` when it is declared but has no value. An undeclared name is
   * refused with `SECRET_NOT_DECLARED`, whether or not the file has it.
   */
  async get(name: string, declared: readonly string[]): Promise<string | null> {
    requireDeclared(name, declared);
    return (await this.#load()).get(name) ?? null;
  }

  /** Every value currently set (for redaction only; never print them). */
  async values(): Promise<string[]> {
    return [...(await this.#load()).values()];
  }

  /**
   * Calls `listener` with every value set each time the file is read anew (it changed, or was
   * removed): the log sink's redaction follows the file this way.
   */
  onChange(listener: (values: string[]) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Re-reads the file as soon as it is written, created or removed, rather than on the next
   * `get`, so {@link SecretStore.onChange} listeners learn of a value added while nothing
   * reads it. Returns the function that stops watching. A file that is not valid JSON while
   * being edited is skipped until its next change.
   */
  watch(): () => void {
    const name = basename(this.path);
    // The folder, not the file: editors that save by renaming replace the file's inode.
    const watcher = watch(dirname(this.path), { persistent: false }, (_event, changed) => {
      if (changed === null || changed === name) void this.#load().catch(() => undefined);
    });
    watcher.on('error', () => undefined);
    return () => watcher.close();
  }

  // Re-read when the file changes, so edits apply without a restart.
  async #load(): Promise<Map<string, string>> {
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(this.path)).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (this.#cache !== undefined) {
        this.#cache = undefined;
        this.#changed(new Map());
      }
      return new Map();
    }
    if (this.#cache?.mtimeMs === mtimeMs) return this.#cache.values;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.path, 'utf8'));
    } catch {
      // The message names the file, never its content.
      throw new PlatformError({ code: 'INTERNAL', message: `${this.path} is not valid JSON.` });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new PlatformError({
        code: 'INTERNAL',
        message: `${this.path} must hold a JSON object of strings.`,
      });
    }
    const values = new Map<string, string>();
    for (const [key, value] of Object.entries(parsed)) {
      if (typeof value === 'string' && NAME.test(key)) values.set(key, value);
    }
    this.#cache = { mtimeMs, values };
    this.#changed(values);
    return values;
  }

  #changed(values: Map<string, string>): void {
    for (const listener of this.#listeners) listener([...values.values()]);
  }
}
