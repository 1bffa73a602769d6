import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The app's VAPID key pair (RFC 8292): P-256, both halves base64url. */
export interface VapidKeys {
  /** Uncompressed public key (65 bytes): served to browsers as the `applicationServerKey`. */
  readonly publicKey: string;
  /** The private scalar (32 bytes): signs the VAPID JWT; never served, logged or returned. */
  readonly privateKey: string;
}

/** Where an app keeps its VAPID key pair: `<appDir>/.platform/push/vapid.json`. */
export const vapidKeysPath = (stateDir: string): string => join(stateDir, 'push', 'vapid.json');

function isKeys(value: unknown): value is VapidKeys {
  const keys = value as Partial<VapidKeys> | null;
  return (
    typeof keys?.publicKey === 'string' &&
    Buffer.from(keys.publicKey, 'base64url').byteLength === 65 &&
    typeof keys.privateKey === 'string' &&
    Buffer.from(keys.privateKey, 'base64url').byteLength === 32
  );
}

/**
 * The app's VAPID key pair, made on the first start and kept in `.platform/push/vapid.json`
 * (folder 0700, file 0600). Push services bind a subscription to the key it was made with, so
 * the pair must outlive restarts: a new pair would orphan every subscription. A file that is
 * not a key pair is an error rather than silently replaced, for the same reason.
 *
 * @example
 * ```ts
 * const keys = await loadVapidKeys('.platform');
 * ```
 */
export async function loadVapidKeys(stateDir: string): Promise<VapidKeys> {
  const path = vapidKeysPath(stateDir);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!isKeys(parsed)) {
      throw new Error(
        `${path} is not a VAPID key pair; restore it, or delete it to make a new one (every push subscription of the app then has to be made again).`,
      );
    }
    return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
  }
  await mkdir(join(stateDir, 'push'), { recursive: true, mode: 0o700 });
  const { default: webpush } = await import('web-push');
  const keys = webpush.generateVAPIDKeys();
  // Written whole under another name, then renamed: a crash never leaves half a key.
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temp, path);
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}
