import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const KEY_FILE = 'credentials.key';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals connection credentials with AES-256-GCM under a key kept in a file beside the central
 * store, never in the database itself: a copy of the database (a dump, a backup, a shared
 * PostgreSQL) holds only ciphertext. Each sealed value is bound to its connection id, so a
 * ciphertext moved to another row does not open.
 */
export class CredentialCipher {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  /**
   * The cipher of the key in `<dir>/credentials.key` (owner-only), made on first use. `dir` is
   * the central store's state folder (`.platform` of the workspace or of a single app).
   */
  static async open(dir: string): Promise<CredentialCipher> {
    return CredentialCipher.openFile(join(dir, KEY_FILE));
  }

  /** The cipher of the key in the file `path` (owner-only), made on first use. */
  static async openFile(path: string): Promise<CredentialCipher> {
    const dir = dirname(path);
    const existing = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.length === 32) return new CredentialCipher(existing);
    if (existing !== undefined) {
      throw new Error(`${path} is not a 32-byte key; remove it only if no connection needs it.`);
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    // `wx`: two brokers starting at once must not each write a different key.
    await writeFile(path, key, { flag: 'wx', mode: 0o600 }).catch(async (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    });
    await chmod(path, 0o600);
    return new CredentialCipher(await readFile(path));
  }

  /** A cipher with a key held only in memory (in-memory stores of tests). */
  static ephemeral(): CredentialCipher {
    return new CredentialCipher(randomBytes(32));
  }

  /**
   * The secret of the connection's webhook URL: derived from the key, so it is never stored and
   * always the same for the connection (base64url, 256 bits).
   */
  webhookSecret(connectionId: string): string {
    return createHmac('sha256', this.#key).update(`webhook\0${connectionId}`).digest('base64url');
  }

  /** `values` sealed for the connection `connectionId`, as base64 text. */
  seal(connectionId: string, values: Readonly<Record<string, string>>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(connectionId, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The values sealed for `connectionId`; throws when the key or the row do not match. */
  open(connectionId: string, sealed: string): Record<string, string> {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(connectionId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
    return JSON.parse(text) as Record<string, string>;
  }
}
