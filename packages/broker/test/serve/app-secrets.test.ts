// Deployed apps' secrets in the central store: sealed at rest and bound to their app and name,
// read by another node within the memory bound when no change announcement reaches it, told to
// the redaction before a Function gets them, and readable only under declared names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { CredentialCipher } from '../../src/integrations/credential-cipher.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { AppSecrets, SECRET_CACHE_MS } from '../../src/serve/app-secrets.ts';
import { openTestCentral } from '../helpers/db.ts';

const VALUE = 'sk_live_PLANTED_value_0c9d2b';

describe("deployed apps' secrets in the central store", () => {
  let central: Database;
  const cipher = CredentialCipher.ephemeral();
  // Two nodes on one store; neither listens, so a change reaches the other only by its bound.
  let a: AppSecrets;
  let b: AppSecrets;

  beforeAll(async () => {
    central = await openTestCentral();
    await central.query("INSERT INTO platform.apps (app_id) VALUES ('shop'), ('other')");
    a = new AppSecrets({ central, cipher, clock: systemClock });
    b = new AppSecrets({ central, cipher, clock: systemClock });
  }, 60_000);
  afterAll(() => central?.close());

  it('keeps only ciphertext, bound to its app and name', async () => {
    await a.set('shop', 'API_KEY', VALUE);
    const { rows } = await central.query<{ sealed: string }>('SELECT * FROM platform.app_secrets');
    expect(JSON.stringify(rows)).not.toContain(VALUE);
    expect(JSON.stringify(rows)).not.toContain(Buffer.from(VALUE).toString('base64'));
    // The same ciphertext under another app's row does not open, and the error shows no value.
    await central.query(
      `INSERT INTO platform.app_secrets (app_id, name, sealed, updated_at)
       VALUES ('other', 'API_KEY', $1, now())`,
      [rows[0]?.sealed],
    );
    const moved = b.source('other').get('API_KEY', ['API_KEY']);
    await expect(moved).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(moved).rejects.not.toThrow(VALUE);
  });

  it('lists names and times, never values', async () => {
    const listed = await a.list('shop');
    expect(listed.map((one) => Object.keys(one).sort())).toEqual([['name', 'updatedAt']]);
    expect(JSON.stringify(listed)).not.toContain(VALUE);
  });

  it('tells the redaction every value before answering, and refuses undeclared names', async () => {
    const source = b.source('shop');
    const told: string[][] = [];
    source.onChange((values) => told.push(values));
    expect(await source.get('API_KEY', ['API_KEY'])).toBe(VALUE);
    expect(told).toEqual([[VALUE]]);
    await expect(source.get('API_KEY', [])).rejects.toMatchObject({
      code: 'SECRET_NOT_DECLARED',
    });
  });

  it('reaches another node without an announcement once its memory bound has passed', async () => {
    const onB = b.source('shop');
    const stop = onB.watch();
    try {
      expect(await onB.get('API_KEY', ['API_KEY'])).toBe(VALUE);
      await a.set('shop', 'API_KEY', 'changed value');
      // B has not heard of it: it answers from memory until the bound.
      expect(await onB.get('API_KEY', ['API_KEY'])).toBe(VALUE);
      await new Promise((resolve) => setTimeout(resolve, SECRET_CACHE_MS + 100));
      expect(await onB.get('API_KEY', ['API_KEY'])).toBe('changed value');
      // On the node that made the change, its sources drop their copy at once.
      const onA = a.source('shop');
      const stopA = onA.watch();
      expect(await onA.get('API_KEY', ['API_KEY'])).toBe('changed value');
      await a.remove('shop', 'API_KEY');
      expect(await onA.get('API_KEY', ['API_KEY'])).toBeNull();
      stopA();
    } finally {
      stop();
    }
    await expect(a.remove('shop', 'API_KEY')).rejects.toMatchObject({ code: 'SECRET_NOT_SET' });
  });
});
