import { limits } from '@platform/schema';
import type { Database, Queryable } from '../db/database.ts';
import { addSeconds, type Clock, systemClock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import type { ConnectionKind } from './connections.ts';

/** What a connect link lets its holder do, once. */
export interface ConnectLink {
  readonly providerAppId: string;
  readonly integration: string;
  readonly kind: ConnectionKind;
  /** The person who connects: the owner of a personal connection, or the administrator. */
  readonly accountId: string;
  /** The connection whose credentials are replaced; `null` for a new connection. */
  readonly connectionId: string | null;
  /** The slot bound to the new connection in the same step, if any. */
  readonly bind: { readonly appId: string; readonly slot: string } | null;
  readonly expiresAt: string;
}

interface Row {
  provider_app_id: string;
  integration: string;
  kind: ConnectionKind;
  account_id: string;
  connection_id: string | null;
  bind_app_id: string | null;
  bind_slot: string | null;
  expires_at: Date | string;
}

/**
 * One-time links to the page where a person enters a connection's credentials
 * (docs/integrations.md). The link is made for one person by someone entitled to (the
 * developer on their behalf, or the broker for the signed-in person of a `calling_user` call),
 * so the page needs no other sign-in; only its SHA-256 is stored, and it is consumed by the
 * form that uses it.
 */
export class ConnectLinks {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(central: Database, clock: Clock = systemClock) {
    this.#db = central;
    this.#clock = clock;
  }

  /** A new link's secret token for `link` (without `expiresAt`, which it sets). */
  async create(
    link: Omit<ConnectLink, 'expiresAt'>,
  ): Promise<{ token: string; expiresAt: string }> {
    const token = randomSecret();
    const expiresAt = addSeconds(this.#clock.now(), limits.integration.connectLinkSeconds);
    await this.#db.query(
      `INSERT INTO platform.connect_links
         (token_hash, provider_app_id, integration, kind, account_id, connection_id, bind_app_id, bind_slot, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        sha256(token),
        link.providerAppId,
        link.integration,
        link.kind,
        link.accountId,
        link.connectionId,
        link.bind?.appId ?? null,
        link.bind?.slot ?? null,
        expiresAt,
      ],
    );
    return { token, expiresAt: expiresAt.toISOString() };
  }

  /** The unused, unexpired link of `token`, or `undefined`. */
  async peek(token: string): Promise<ConnectLink | undefined> {
    const { rows } = await this.#db.query<Row>(
      `SELECT provider_app_id, integration, kind, account_id, connection_id, bind_app_id, bind_slot, expires_at
         FROM platform.connect_links
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`,
      [sha256(token), this.#clock.now()],
    );
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  /** Marks `token` used; `false` when it was used, expired or unknown (a second submit). */
  async consume(token: string, db: Queryable = this.#db): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE platform.connect_links SET used_at = $2
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2`,
      [sha256(token), this.#clock.now()],
    );
    return rowCount > 0;
  }
}

function toLink(row: Row): ConnectLink {
  return {
    providerAppId: row.provider_app_id,
    integration: row.integration,
    kind: row.kind,
    accountId: row.account_id,
    connectionId: row.connection_id,
    bind:
      row.bind_app_id !== null && row.bind_slot !== null
        ? { appId: row.bind_app_id, slot: row.bind_slot }
        : null,
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}
