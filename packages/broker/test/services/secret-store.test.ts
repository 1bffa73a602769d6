import { writeFile } from 'node:fs/promises';
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
});
