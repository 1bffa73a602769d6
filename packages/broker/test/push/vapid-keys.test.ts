import { stat, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVapidKeys, vapidKeysPath } from '../../src/push/vapid-keys.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
afterEach(() => dir?.remove());

describe('the VAPID key pair', () => {
  it('is made once, owner-only, and the same pair on every later start', async () => {
    dir = await tempDir('vapid-');
    const first = await loadVapidKeys(dir.path);
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(first.privateKey, 'base64url')).toHaveLength(32);
    expect((await stat(vapidKeysPath(dir.path))).mode & 0o777).toBe(0o600);
    expect(await loadVapidKeys(dir.path)).toEqual(first);
  });

  it('refuses a file that is not a key pair instead of replacing it', async () => {
    dir = await tempDir('vapid-');
    await loadVapidKeys(dir.path);
    await writeFile(vapidKeysPath(dir.path), '{"publicKey":"abc"}');
    await expect(loadVapidKeys(dir.path)).rejects.toThrow(/is not a VAPID key pair; restore it/);
  });
});
