import { PlatformError } from '@platform/errors';
import type { IntegrationContract } from '@platform/schema/manifest';
import type { Database, Queryable } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import type { CredentialCipher } from './credential-cipher.ts';

/** Who a connection belongs to (spec 2.11). */
export type ConnectionKind = 'personal' | 'organisation';

/** A connection's condition (spec 3.2). */
export type ConnectionCondition = 'active' | 'reconnect_required';

/** The OAuth tokens of a connection, as its provider's exchange or refresh Function answered. */
export interface OAuthGrant {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  /** When the access token expires; `null` when the provider said nothing. */
  readonly expiresAt: Date | null;
}

/** A connection as every API and page shows it: never a credential value. */
export interface Connection {
  readonly id: string;
  readonly integration: string;
  readonly providerAppId: string;
  readonly kind: ConnectionKind;
  /** The owner of a personal connection; `null` for an organisation connection. */
  readonly ownerAccountId: string | null;
  readonly createdBy: string;
  readonly condition: ConnectionCondition;
  readonly createdAt: string;
  readonly updatedAt: string;
}

interface Row {
  id: string;
  integration: string;
  provider_app_id: string;
  kind: ConnectionKind;
  owner_account_id: string | null;
  created_by: string;
  condition: ConnectionCondition;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS =
  'id, integration, provider_app_id, kind, owner_account_id, created_by, condition, created_at, updated_at';

const iso = (value: Date | string) => new Date(value).toISOString();

// Tokens are sealed apart from the credential values, so that neither opens as the other.
const grantScope = (id: string) => `${id}#oauth`;

function toConnection(row: Row): Connection {
  return {
    id: row.id,
    integration: row.integration,
    providerAppId: row.provider_app_id,
    kind: row.kind,
    ownerAccountId: row.owner_account_id,
    createdBy: row.created_by,
    condition: row.condition,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** `stored` values under every name `contract` declares (an optional one left empty is `null`). */
export function credentialsUnder(
  contract: Pick<IntegrationContract, 'credentials'>,
  stored: Readonly<Record<string, string>>,
): Record<string, string | null> {
  return Object.fromEntries(contract.credentials.map(({ name }) => [name, stored[name] ?? null]));
}

/** `INTEGRATION_CONNECTION_NOT_FOUND` for `id`. */
export function connectionNotFound(id: string): PlatformError {
  return new PlatformError({
    code: 'INTEGRATION_CONNECTION_NOT_FOUND',
    message: `No connection "${id}" exists in the organisation.`,
    details: { connectionId: id },
  });
}

/**
 * The organisation's connections in the central store (docs/integrations.md). Credential
 * values go in sealed and come out only through {@link Connections.values}, which the broker
 * calls to hand them to a provider Function for one invocation; no other method returns them.
 * Who may create, replace or remove a connection is decided by the caller (`integration-rules.ts`).
 */
export class Connections {
  readonly #db: Database;
  readonly #cipher: CredentialCipher;
  readonly #clock: Clock;

  constructor(central: Database, cipher: CredentialCipher, clock: Clock = systemClock) {
    this.#db = central;
    this.#cipher = cipher;
    this.#clock = clock;
  }

  /** A new connection id, for an OAuth sign-in that stores the connection once it completes. */
  static newId(): string {
    return newId('connection');
  }

  /** Stores a new, active connection with its sealed `values` (and OAuth tokens). */
  async create(
    fields: {
      readonly id?: string | undefined;
      readonly integration: string;
      readonly providerAppId: string;
      readonly kind: ConnectionKind;
      readonly createdBy: string;
      readonly values: Readonly<Record<string, string>>;
      readonly grant?: OAuthGrant | undefined;
    },
    db: Queryable = this.#db,
  ): Promise<Connection> {
    const id = fields.id ?? Connections.newId();
    const now = this.#clock.now();
    const { rows } = await db.query<Row>(
      `INSERT INTO platform.connections
         (id, integration, provider_app_id, kind, owner_account_id, created_by, credentials,
          oauth_tokens, token_expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${COLUMNS}`,
      [
        id,
        fields.integration,
        fields.providerAppId,
        fields.kind,
        fields.kind === 'personal' ? fields.createdBy : null,
        fields.createdBy,
        this.#cipher.seal(id, fields.values),
        fields.grant ? this.#sealGrant(id, fields.grant) : null,
        fields.grant?.expiresAt ?? null,
        now,
      ],
    );
    return toConnection(rows[0] as Row);
  }

  /** The connection `id`, or `undefined`. */
  async find(id: string, db: Queryable = this.#db): Promise<Connection | undefined> {
    const { rows } = await db.query<Row>(
      `SELECT ${COLUMNS} FROM platform.connections WHERE id = $1`,
      [id],
    );
    return rows[0] ? toConnection(rows[0]) : undefined;
  }

  /** The connection `id`; `INTEGRATION_CONNECTION_NOT_FOUND` when there is none. */
  async get(id: string, db: Queryable = this.#db): Promise<Connection> {
    const found = await this.find(id, db);
    if (!found) throw connectionNotFound(id);
    return found;
  }

  /** The connections of the organisation, or of one integration, oldest first. */
  async list(integration?: string): Promise<Connection[]> {
    const { rows } = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM platform.connections
        WHERE $1::text IS NULL OR integration = $1 ORDER BY created_at, id`,
      [integration ?? null],
    );
    return rows.map(toConnection);
  }

  /**
   * The credential values of `id` for one provider invocation, under every name `contract`
   * declares (an optional one left empty reads as `null`). Never return them from an API, never
   * log them, never store them elsewhere.
   */
  async credentials(
    id: string,
    contract: Pick<IntegrationContract, 'credentials'>,
  ): Promise<Record<string, string | null>> {
    const { rows } = await this.#db.query<{ credentials: string }>(
      'SELECT credentials FROM platform.connections WHERE id = $1',
      [id],
    );
    const sealed = rows[0]?.credentials;
    if (sealed === undefined) throw connectionNotFound(id);
    return credentialsUnder(contract, this.#cipher.open(id, sealed));
  }

  /** The secret of the webhook URL of `id` (see `CredentialCipher.webhookSecret`). */
  webhookSecret(id: string): string {
    return this.#cipher.webhookSecret(id);
  }

  /**
   * Replaces the values of `id` (and, after an OAuth sign-in, its tokens); the connection
   * becomes active again (spec 3.2).
   */
  async replaceValues(
    id: string,
    values: Readonly<Record<string, string>>,
    grant?: OAuthGrant,
    db: Queryable = this.#db,
  ): Promise<Connection> {
    const { rows } = await db.query<Row>(
      `UPDATE platform.connections
          SET credentials = $2, condition = 'active', updated_at = $3,
              oauth_tokens = COALESCE($4, oauth_tokens),
              token_expires_at = CASE WHEN $4::text IS NULL THEN token_expires_at ELSE $5 END
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        this.#cipher.seal(id, values),
        this.#clock.now(),
        grant ? this.#sealGrant(id, grant) : null,
        grant?.expiresAt ?? null,
      ],
    );
    if (!rows[0]) throw connectionNotFound(id);
    return toConnection(rows[0]);
  }

  /** The OAuth tokens of `id`; `undefined` when it has none. Never return them from an API. */
  async grant(id: string, db: Queryable = this.#db): Promise<OAuthGrant | undefined> {
    const { rows } = await db.query<{ oauth_tokens: string | null; token_expires_at: Date | null }>(
      'SELECT oauth_tokens, token_expires_at FROM platform.connections WHERE id = $1',
      [id],
    );
    const row = rows[0];
    if (!row) throw connectionNotFound(id);
    if (row.oauth_tokens === null) return undefined;
    const opened = this.#cipher.open(grantScope(id), row.oauth_tokens);
    return {
      accessToken: opened.accessToken as string,
      refreshToken: opened.refreshToken ?? null,
      expiresAt: row.token_expires_at === null ? null : new Date(row.token_expires_at),
    };
  }

  /** Stores refreshed tokens of `id` (keeping the refresh token when `grant` has none). */
  async storeGrant(id: string, grant: OAuthGrant, db: Queryable = this.#db): Promise<void> {
    const kept = grant.refreshToken ?? (await this.grant(id, db))?.refreshToken ?? null;
    await db.query(
      `UPDATE platform.connections SET oauth_tokens = $2, token_expires_at = $3, updated_at = $4
        WHERE id = $1`,
      [
        id,
        this.#sealGrant(id, { ...grant, refreshToken: kept }),
        grant.expiresAt,
        this.#clock.now(),
      ],
    );
  }

  #sealGrant(id: string, grant: OAuthGrant): string {
    return this.#cipher.seal(grantScope(id), {
      accessToken: grant.accessToken,
      ...(grant.refreshToken === null ? {} : { refreshToken: grant.refreshToken }),
    });
  }

  /** Marks `id` `Reconnect required` (the provider rejected its credentials). */
  async requireReconnect(id: string): Promise<void> {
    await this.#db.query(
      `UPDATE platform.connections SET condition = 'reconnect_required', updated_at = $2
        WHERE id = $1`,
      [id, this.#clock.now()],
    );
  }

  /** Removes `id` and, by the foreign key, every binding of it. */
  async remove(id: string): Promise<void> {
    const { rowCount } = await this.#db.query('DELETE FROM platform.connections WHERE id = $1', [
      id,
    ]);
    if (rowCount === 0) throw connectionNotFound(id);
  }
}
