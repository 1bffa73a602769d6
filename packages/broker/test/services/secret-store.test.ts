import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretStore } from '../../src/secrets/secret-store.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe('SecretStore', () => {
  it('reads only declared names, re-reads on change, never echoes values', async () => {
    const path = join(dir.path, 'secrets.json');
    const store = new SecretStore(path);
    expect(await store.get('A', ['A'])).toBeNull();
    await writeFile(path, JSON.stringify({ A: 'one', B: 'two' }));
    expect(await store.get('A', ['A'])).toBe('one');
    const refused = await store.get('B', ['A']).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'SECRET_NOT_DECLARED' });
    expect(JSON.stringify(refused) + String(refused)).not.toContain('two');
    // A later write with a different mtime is picked up without a restart.
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(path, JSON.stringify({ A: 'three' }));
    expect(await store.get('A', ['A'])).toBe('three');
    await writeFile(path, '{ not json "three"');
    const broken = await store.get('A', ['A']).catch((e: unknown) => e);
    expect(String((broken as Error).message)).not.toContain('three');
  });

  it('tells its listeners of values written while nothing reads them', async () => {
    const path = join(dir.path, 'watched', 'secrets.json');
    await mkdir(join(dir.path, 'watched'));
    const store = new SecretStore(path);
    const seen: string[][] = [];
    store.onChange((values) => seen.push(values));
    const stop = store.watch();
    try {
      await writeFile(path, JSON.stringify({ A: 'first-value' }));
      await expect.poll(() => seen.at(-1), { timeout: 5000 }).toEqual(['first-value']);
      // Saved the way editors do: a new file renamed over the old one.
      await writeFile(`${path}.tmp`, JSON.stringify({ A: 'first-value', B: 'second-value' }));
      await rename(`${path}.tmp`, path);
      await expect
        .poll(() => seen.at(-1), { timeout: 5000 })
        .toEqual(['first-value', 'second-value']);
    } finally {
      stop();
    }
  });
});
