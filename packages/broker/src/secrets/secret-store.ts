import { readFile, stat } from 'node:fs/promises';
import { PlatformError } from '@platform/errors';

const NAME = /^[A-Z][A-Z0-9_]*$/;

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
export class SecretStore {
  readonly path: string;
  #cache: { mtimeMs: number; values: Map<string, string> } | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The value of `name`, or `null` when it is declared but has no value. An undeclared name is
   * refused with `SECRET_NOT_DECLARED`, whether or not the file has it.
   */
  async get(name: string, declared: readonly string[]): Promise<string | null> {
    if (!declared.includes(name)) {
      throw new PlatformError({
        code: 'SECRET_NOT_DECLARED',
        message: `Secret ${NAME.test(name) ? name : '(invalid name)'} is not declared in platform.yaml.`,
        details: NAME.test(name) ? { name } : {},
      });
    }
    return (await this.#load()).get(name) ?? null;
  }

  /** Every value currently set (for redaction only; never print them). */
  async values(): Promise<string[]> {
    return [...(await this.#load()).values()];
  }

  // Re-read when the file changes, so edits apply without a restart.
  async #load(): Promise<Map<string, string>> {
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(this.path)).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw error;
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
    return values;
  }
}
