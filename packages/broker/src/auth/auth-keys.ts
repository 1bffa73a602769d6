import type { Database } from '../db/database.ts';
import { randomSecret } from '../kernel/crypto.ts';

/**
 * The app's own secret keys, random once and kept in `platform.auth_keys`, so sessions, form
 * tokens and the developer cookie survive a restart of the broker.
 */
export interface AuthKeys {
  /** Signs access JWTs. */
  readonly jwt: string;
  /** Signs form tokens, confirmation cookies and the developer cookie. */
  readonly csrf: string;
}

/**
 * Reads the keys, making each on first use. Brokers sharing one PostgreSQL agree: the first
 * key written wins and every broker reads it back.
 *
 * @example
 * ```ts
 * const { jwt, csrf } = await loadAuthKeys(db);
 * ```
 */
export async function loadAuthKeys(db: Database): Promise<AuthKeys> {
  const key = async (name: string): Promise<string> => {
    await db.query(
      'INSERT INTO platform.auth_keys (name, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [name, randomSecret()],
    );
    const { rows } = await db.query<{ secret: string }>(
      'SELECT secret FROM platform.auth_keys WHERE name = $1',
      [name],
    );
    return (rows[0] as { secret: string }).secret;
  };
  return { jwt: await key('jwt'), csrf: await key('csrf') };
}
