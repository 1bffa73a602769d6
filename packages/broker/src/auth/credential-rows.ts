import type { Queryable } from '../db/database.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { type RecentLastUse, useRecordingLastUse } from './last-use.ts';

/** A credential of `platform.agent_credentials` as stored: its hash, never its value. */
export interface CredentialRow {
  readonly id: string;
  readonly account_id: string;
  /** The one app an agent credential acts on; `null` for an account credential. */
  readonly app_id: string | null;
  readonly name: string;
  readonly hint: string;
  readonly created_at: Date | string;
  readonly last_used_at: Date | string | null;
}

/** What every listed credential shows of itself. */
export interface CredentialInfoBase {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** The prefix and first characters (`plat_agent_Ab3d…`). */
  readonly hint: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

/** The kinds the table holds, each with the fixed start of its values. */
export interface CredentialKindSpec {
  readonly kind: 'agent' | 'account';
  readonly prefix: string;
}

/** A row as listed. */
export const credentialInfo = (row: CredentialRow): CredentialInfoBase => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  hint: row.hint,
  createdAt: new Date(row.created_at).toISOString(),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
});

/**
 * Stores a new credential of `spec`'s kind (its SHA-256 and a hint) and answers the row and the
 * value, whose only copy that is.
 */
export async function insertCredential(
  on: Queryable,
  spec: CredentialKindSpec,
  row: { id: string; accountId: string; appId: string | null; name: string; now: Date },
): Promise<{ row: CredentialRow; token: string }> {
  const token = spec.prefix + randomSecret();
  const { rows } = await on.query<CredentialRow>(
    `INSERT INTO platform.agent_credentials
       (id, account_id, app_id, name, token_hash, hint, created_at, kind)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [
      row.id,
      row.accountId,
      row.appId,
      row.name,
      sha256(token),
      `${token.slice(0, spec.prefix.length + 4)}…`,
      row.now,
      spec.kind,
    ],
  );
  return { row: rows[0] as CredentialRow, token };
}

/**
 * The live credential of `spec`'s kind behind `value`, if any, its use at `now` recorded at most
 * once per `LAST_USE_INTERVAL_MS` (`recent` says which this process wrote lately).
 */
export async function useCredential(
  on: Queryable,
  spec: CredentialKindSpec,
  value: string,
  now: Date,
  recent: RecentLastUse,
): Promise<CredentialRow | undefined> {
  if (!value.startsWith(spec.prefix)) return undefined;
  const digest = sha256(value);
  return useRecordingLastUse<CredentialRow>(recent, digest, now, {
    read: async () =>
      (
        await on.query<CredentialRow>(
          `SELECT ${COLUMNS} FROM platform.agent_credentials
           WHERE token_hash = $1 AND kind = $2 AND revoked_at IS NULL`,
          [digest, spec.kind],
        )
      ).rows[0],
    write: async (staleBefore) =>
      (
        await on.query<CredentialRow>(
          `WITH live AS (
             SELECT ${COLUMNS} FROM platform.agent_credentials
             WHERE token_hash = $1 AND kind = $3 AND revoked_at IS NULL
           ), used AS (
             UPDATE platform.agent_credentials AS c SET last_used_at = $2 FROM live
             WHERE c.id = live.id AND c.revoked_at IS NULL
               AND (c.last_used_at IS NULL OR c.last_used_at < $4)
             RETURNING c.id, c.last_used_at
           )
           SELECT live.id, live.account_id, live.app_id, live.name, live.hint, live.created_at,
             COALESCE(used.last_used_at, live.last_used_at) AS last_used_at
           FROM live LEFT JOIN used ON used.id = live.id`,
          [digest, now, spec.kind, staleBefore],
        )
      ).rows[0],
  });
}

/** The columns of {@link CredentialRow}. */
const COLUMNS = 'id, account_id, app_id, name, hint, created_at, last_used_at';
