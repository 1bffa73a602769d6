import { isJsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { IntegrationContract } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { type Connections, credentialsUnder, type OAuthGrant } from './connections.ts';
import type { PendingSignIn } from './oauth-states.ts';
import type { ProviderApp } from './provider-app.ts';

/** An access token this close to expiring is refreshed before use (spec 8). */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;

// How long one process may hold a connection's refresh before another may take it over: the
// refresh Function's time limit with room to store its answer.
const REFRESH_LEASE_MS = limits.integration.operationTimeoutSeconds * 1000 + 5_000;
const LEASE_POLL_MS = 100;

/** `INTEGRATION_RECONNECT_REQUIRED` for `connectionId`, before a connect URL is added. */
export function reconnectRequired(connectionId: string, why: string): PlatformError {
  return new PlatformError({
    code: 'INTEGRATION_RECONNECT_REQUIRED',
    message: `The connection ${connectionId} must be reconnected: ${why}.`,
    details: { connectionId },
  });
}

/**
 * The OAuth side of connections (spec 2.10, 3.2; docs/integrations.md): the provider's
 * `exchange` Function turns an authorization code into tokens, and before an operation, sync or
 * webhook Function runs, an access token that expires within a minute is refreshed by the
 * `refresh` Function, once at a time per connection, also across broker processes sharing one
 * PostgreSQL (a lease on the connection's row). Exchange and refresh Functions receive the
 * credential values, never the access token; a rejected refresh makes the connection
 * `Reconnect required`. Token values never reach a log, an error or a record.
 */
export class OAuthTokens {
  readonly #connections: Connections;
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #print: LogWriter;
  readonly #inflight = new Map<string, Promise<string>>();

  constructor(options: {
    central: Database;
    connections: Connections;
    print: LogWriter;
    clock?: Clock | undefined;
  }) {
    this.#db = options.central;
    this.#connections = options.connections;
    this.#print = options.print;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Runs the provider's `exchange` Function for `pending` with `{ code, redirectUri,
   * codeVerifier }`; answers the tokens it returned.
   */
  async exchange(
    provider: ProviderApp,
    contract: IntegrationContract,
    pending: PendingSignIn,
    code: string,
    redirectUri: string,
    requestId: string,
  ): Promise<OAuthGrant> {
    const oauth = oauthOf(contract);
    let output: JsonValue;
    try {
      output = await provider.invoke(oauth.exchange, {
        requestId,
        input: { code, redirectUri, codeVerifier: pending.codeVerifier },
        connectionId: pending.connectionId,
        trigger: 'oauth',
        credentials: credentialsUnder(contract, pending.values),
        timeoutMs: limits.integration.operationTimeoutSeconds * 1000,
      });
    } catch (error) {
      throw this.#failed(contract, oauth.exchange, error);
    }
    return this.#grantFrom(oauth.exchange, output);
  }

  /**
   * What an operation, sync or webhook Function of `provider` receives for `connectionId`: the
   * credential values under their declared names and, for an OAuth contract, the current access
   * token under `authorization.accessToken`, refreshed first when it expires within a minute.
   */
  async credentials(
    connectionId: string,
    contract: IntegrationContract,
    provider: ProviderApp,
    requestId: string,
  ): Promise<Record<string, string | null>> {
    const values = await this.#connections.credentials(connectionId, contract);
    const oauth = contract.authorization;
    if (!oauth) return values;
    let running = this.#inflight.get(connectionId);
    if (!running) {
      running = this.#fresh(connectionId, contract, provider, requestId).finally(() =>
        this.#inflight.delete(connectionId),
      );
      this.#inflight.set(connectionId, running);
    }
    return { ...values, [oauth.accessToken]: await running };
  }

  async #fresh(
    id: string,
    contract: IntegrationContract,
    provider: ProviderApp,
    requestId: string,
  ): Promise<string> {
    const oauth = oauthOf(contract);
    const giveUp = Date.now() + 2 * REFRESH_LEASE_MS;
    for (;;) {
      const grant = await this.#connections.grant(id);
      if (!grant) throw reconnectRequired(id, 'it has no OAuth tokens yet; sign in');
      const now = this.#clock.now().getTime();
      const expiresAt = grant.expiresAt?.getTime();
      if (expiresAt === undefined || expiresAt - now > REFRESH_BEFORE_EXPIRY_MS) {
        return grant.accessToken;
      }
      if (oauth.refresh === undefined || grant.refreshToken === null) {
        if (expiresAt > now) return grant.accessToken;
        await this.#connections.requireReconnect(id);
        throw reconnectRequired(id, 'its access token expired and cannot be refreshed');
      }
      if (await this.#lease(id)) {
        try {
          return await this.#refresh(id, contract, provider, grant.refreshToken, requestId);
        } finally {
          await this.#db.query(
            'UPDATE platform.connections SET refresh_lease_until = NULL WHERE id = $1',
            [id],
          );
        }
      }
      // Another broker process refreshes this connection now: use what it stores.
      const connection = await this.#connections.get(id);
      if (connection.condition === 'reconnect_required') {
        throw reconnectRequired(id, 'its OAuth refresh was rejected');
      }
      if (Date.now() > giveUp) {
        throw new PlatformError({
          code: 'INTEGRATION_PROVIDER_UNAVAILABLE',
          message: `"${contract.name}" is unavailable for now: the connection's token refresh did not finish; try again.`,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
    }
  }

  // Takes the connection's refresh for this process, if its token still needs one and no other
  // process holds it: one statement, so two processes never both take it.
  async #lease(id: string): Promise<boolean> {
    const now = this.#clock.now().getTime();
    const { rowCount } = await this.#db.query(
      `UPDATE platform.connections SET refresh_lease_until = $2
        WHERE id = $1 AND condition = 'active'
          AND (refresh_lease_until IS NULL OR refresh_lease_until <= $3)
          AND token_expires_at IS NOT NULL AND token_expires_at <= $4`,
      [
        id,
        new Date(now + REFRESH_LEASE_MS),
        new Date(now),
        new Date(now + REFRESH_BEFORE_EXPIRY_MS),
      ],
    );
    return rowCount > 0;
  }

  async #refresh(
    id: string,
    contract: IntegrationContract,
    provider: ProviderApp,
    refreshToken: string,
    requestId: string,
  ): Promise<string> {
    const refresh = oauthOf(contract).refresh as string;
    let output: JsonValue;
    try {
      output = await provider.invoke(refresh, {
        requestId,
        input: { refreshToken },
        connectionId: id,
        trigger: 'oauth',
        credentials: await this.#connections.credentials(id, contract),
        timeoutMs: limits.integration.operationTimeoutSeconds * 1000,
      });
    } catch (error) {
      const known = error instanceof PlatformError ? error : undefined;
      if (known && known.status >= 400 && known.status < 500) {
        await this.#connections.requireReconnect(id);
        this.#print(
          `integration ${contract.name}: the refresh of ${id} was rejected (${known.code})`,
        );
        throw reconnectRequired(id, 'its OAuth refresh was rejected');
      }
      throw this.#failed(contract, refresh, error);
    }
    const grant = this.#grantFrom(refresh, output);
    await this.#connections.storeGrant(id, grant);
    return grant.accessToken;
  }

  #grantFrom(fn: string, output: JsonValue): OAuthGrant {
    const { accessToken, refreshToken, expiresIn } = isJsonObject(output)
      ? output
      : ({} as Record<string, undefined>);
    const valid =
      typeof accessToken === 'string' &&
      accessToken !== '' &&
      (refreshToken === undefined || refreshToken === null || typeof refreshToken === 'string') &&
      (expiresIn === undefined ||
        expiresIn === null ||
        (typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0));
    if (!valid) {
      throw new PlatformError({
        code: 'INTEGRATION_PROVIDER_FAILED',
        message: `${fn} must answer { accessToken, refreshToken?, expiresIn? }: a non-empty accessToken string, an optional refreshToken string and expiresIn in seconds.`,
        details: { function: fn },
      });
    }
    return {
      accessToken,
      refreshToken: typeof refreshToken === 'string' && refreshToken !== '' ? refreshToken : null,
      expiresAt:
        typeof expiresIn === 'number'
          ? new Date(this.#clock.now().getTime() + expiresIn * 1000)
          : null,
    };
  }

  // A failed exchange or refresh, without the provider's message (it may repeat a token).
  #failed(contract: IntegrationContract, fn: string, error: unknown): PlatformError {
    const known = error instanceof PlatformError ? error : undefined;
    this.#print(
      `integration ${contract.name}: ${fn} failed${known ? ` (${known.code}, ${known.status})` : ''}`,
    );
    return new PlatformError({
      code: known?.retryable ? 'INTEGRATION_PROVIDER_UNAVAILABLE' : 'INTEGRATION_PROVIDER_FAILED',
      message: `"${contract.name}" could not ${fn === contract.authorization?.exchange ? 'finish the sign-in' : 'refresh its token'}: ${fn} failed.`,
      details: { function: fn },
    });
  }
}

function oauthOf(contract: IntegrationContract) {
  const oauth = contract.authorization;
  if (!oauth) throw new TypeError(`"${contract.name}" declares no OAuth authorization`);
  return oauth;
}
