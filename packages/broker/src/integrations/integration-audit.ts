import type { Database } from '../db/database.ts';

/** One integration call as the audit keeps it (spec 6.3): never its input, output or credentials. */
export interface IntegrationCallRecord {
  readonly at: string;
  readonly integration: string;
  readonly providerAppId: string;
  readonly consumerAppId: string;
  readonly slot: string;
  /** The connection used; `null` for a call answered by the contract's fake. */
  readonly connectionId: string | null;
  readonly operation: string;
  /** `development` under `platform dev`. */
  readonly environment: 'development' | 'production';
  /** `fake`: answered with the contract's declared output; `live`: the provider ran. */
  readonly mode: 'fake' | 'live';
  /** `ok`, or the error code the call ended with. */
  readonly result: string;
  readonly durationMs: number;
}

interface Row {
  at: Date | string;
  integration: string;
  provider_app_id: string;
  consumer_app_id: string;
  slot: string;
  connection_id: string | null;
  operation: string;
  environment: 'development' | 'production';
  mode: 'fake' | 'live';
  result: string;
  duration_ms: number;
}

/** The audit of integration calls, in the organisation's central store. */
export class IntegrationAudit {
  readonly #db: Database;

  constructor(central: Database) {
    this.#db = central;
  }

  /** Records one call. */
  async record(call: IntegrationCallRecord): Promise<void> {
    await this.#db.query(
      `INSERT INTO platform.integration_calls
         (at, integration, provider_app_id, consumer_app_id, slot, connection_id, operation, environment, mode, result, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        call.at,
        call.integration,
        call.providerAppId,
        call.consumerAppId,
        call.slot,
        call.connectionId,
        call.operation,
        call.environment,
        call.mode,
        call.result,
        call.durationMs,
      ],
    );
  }

  /** The latest calls an app made or served, newest first. */
  async list(appId: string, limit = 100): Promise<IntegrationCallRecord[]> {
    const { rows } = await this.#db.query<Row>(
      `SELECT at, integration, provider_app_id, consumer_app_id, slot, connection_id, operation,
              environment, mode, result, duration_ms
         FROM platform.integration_calls
        WHERE consumer_app_id = $1 OR provider_app_id = $1
        ORDER BY at DESC, id DESC LIMIT $2`,
      [appId, limit],
    );
    return rows.map((row) => ({
      at: new Date(row.at).toISOString(),
      integration: row.integration,
      providerAppId: row.provider_app_id,
      consumerAppId: row.consumer_app_id,
      slot: row.slot,
      connectionId: row.connection_id,
      operation: row.operation,
      environment: row.environment,
      mode: row.mode,
      result: row.result,
      durationMs: row.duration_ms,
    }));
  }
}
