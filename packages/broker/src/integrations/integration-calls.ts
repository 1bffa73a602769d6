import { type JsonValue, PlatformError } from '@platform/errors';
import { jsonByteLength, limits } from '@platform/schema';
import { checkIntegrationCall, featureSince, Redactor, supports } from '@platform/schema/contract';
import {
  type IntegrationContract,
  jsonSchemaProblem,
  type Manifest,
  type SlotDeclaration,
} from '@platform/schema/manifest';
import type { Caller } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import type { Bindings } from './bindings.ts';
import type { Connection, Connections } from './connections.ts';
import type { DevIntegrationModes } from './dev-integration-modes.ts';
import type { IntegrationAudit } from './integration-audit.ts';
import type { IntegrationRules } from './integration-rules.ts';
import type { OAuthTokens } from './oauth-tokens.ts';
import { findPublisher, type ProviderApp } from './provider-app.ts';

/** One `ctx.integrations.use(slot).call(operation, input)` of a consumer Function. */
export interface IntegrationCallRequest {
  readonly consumerAppId: string;
  /** The consumer's platform.yaml as it serves now. */
  readonly manifest: Manifest;
  /** Who the consumer Function runs for (a `calling_user` slot needs a user). */
  readonly caller: Caller;
  readonly slot: string;
  readonly operation: string;
  readonly input: JsonValue;
  readonly requestId: string;
  readonly signal?: AbortSignal | undefined;
}

/** What the integration calls need. */
export interface IntegrationCallsOptions {
  readonly connections: Connections;
  readonly bindings: Bindings;
  readonly rules: IntegrationRules;
  readonly audit: IntegrationAudit;
  readonly modes: DevIntegrationModes;
  /** The organisation's apps, the consumer included. */
  readonly apps: () => readonly ProviderApp[];
  /** Where a person connects and binds `slot` of `appId` in one step (`details.connectUrl`). */
  readonly connectUrl: (appId: string, slot: string, accountId: string) => Promise<string>;
  /**
   * Where `caller` signs in to `connection` again (`details.connectUrl`), made out to them;
   * `undefined` unless they may manage the connection (spec 3.2, 5.4).
   */
  readonly reconnectUrl: (connection: Connection, caller: Caller) => Promise<string | undefined>;
  /** The credentials and current OAuth access token an operation Function receives. */
  readonly tokens: OAuthTokens;
  readonly environment: 'development' | 'production';
  /** Where provider failures are printed (never with credential values). */
  readonly print: LogWriter;
  /** Told one line for each call (`platform dev` prints it). @default nowhere */
  readonly activity?: LogWriter | undefined;
  readonly clock?: Clock;
}

const fail = (code: string, message: string, details?: Record<string, JsonValue>) =>
  new PlatformError({ code, message, ...(details ? { details } : {}) });

/**
 * Integration operation calls between the organisation's apps (docs/integrations.md). Every
 * call checks the slot, the operation and its capability; under `platform dev` it is answered
 * with the contract's declared `fake` unless the slot was switched live. A live call needs the
 * slot's binding, passes the live authority checks of spec 5.4, and runs the provider's
 * operation Function as the provider's system identity for the connection, with the
 * connection's credentials readable for that call only. Every call is audited.
 */
export class IntegrationCalls {
  readonly #options: IntegrationCallsOptions;
  readonly #clock: Clock;

  constructor(options: IntegrationCallsOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Runs one call and answers the operation's output. Every call is audited, a call refused
   * before it reaches a binding or the provider (an undeclared slot or operation, a capability
   * the slot does not request, a `calling_user` slot without a user) included, with the code it
   * was refused with.
   */
  async call(request: IntegrationCallRequest): Promise<JsonValue> {
    const started = performance.now();
    const slot = request.manifest.integrations[request.slot];
    const found = slot ? findPublisher(this.#options.apps(), slot.integration) : undefined;
    const record = (mode: 'fake' | 'live', connectionId: string | null, result: string) => {
      const durationMs = Math.round(performance.now() - started);
      this.#options.activity?.(
        `integration call ${request.consumerAppId}.${request.slot} ${request.operation} ${mode} ${result} (${durationMs} ms)`,
      );
      return this.#options.audit.record({
        at: this.#clock.now().toISOString(),
        integration: slot?.integration ?? null,
        providerAppId: found?.provider.appId ?? null,
        consumerAppId: request.consumerAppId,
        slot: request.slot,
        connectionId,
        operation: request.operation,
        environment: this.#options.environment,
        mode,
        result,
        durationMs,
      });
    };
    // A `calling_user` slot is never switched live in development.
    const live =
      this.#options.environment === 'production' ||
      (slot?.account !== 'calling_user' &&
        this.#options.modes.mode(request.consumerAppId, request.slot) === 'live');
    let operation: IntegrationContract['operations'][number];
    try {
      operation = checkIntegrationCall({
        slotName: request.slot,
        slot,
        contract: found?.contract,
        operation: request.operation,
        signedIn: request.caller.kind === 'user',
      }) as IntegrationContract['operations'][number];
    } catch (error) {
      await record(live ? 'live' : 'fake', null, codeOf(error));
      throw error;
    }
    // Both exist once the shared checks pass.
    const { provider, contract } = found as NonNullable<typeof found>;
    const declared = slot as SlotDeclaration;
    if (!live) {
      await record('fake', null, 'ok');
      return operation.fake as JsonValue;
    }
    let connection: Connection | undefined;
    try {
      connection = await this.#connection(request, declared, operation.capability);
      const output = await this.#run(request, provider, contract, operation, connection);
      await record('live', connection.id, 'ok');
      return output;
    } catch (error) {
      await record('live', connection?.id ?? null, codeOf(error));
      throw error;
    }
  }

  // The slot's binding and its connection, after the live authority checks of spec 5.4.
  async #connection(
    request: IntegrationCallRequest,
    slot: SlotDeclaration,
    capability: string,
  ): Promise<Connection> {
    const { bindings, connections, rules } = this.#options;
    const person = slot.account === 'calling_user' ? userIdOf(request.caller) : null;
    const binding = await bindings.find(request.consumerAppId, request.slot, person);
    if (!binding) {
      if (person !== null) {
        // The link to connect and bind in one step reaches Functions pinned to an SDK that
        // knows it (spec 7.2, 9); an older Function gets the code and the message only.
        const pinned = request.manifest.runtime.sdk.version;
        const linked = supports(pinned, featureSince.connectUrlOnErrors);
        throw fail(
          'INTEGRATION_CONNECTION_REQUIRED',
          `Connect your account to "${slot.integration}" to use ${request.slot}.`,
          {
            slot: request.slot,
            ...(linked
              ? {
                  connectUrl: await this.#options.connectUrl(
                    request.consumerAppId,
                    request.slot,
                    person,
                  ),
                }
              : {}),
          },
        );
      }
      throw fail(
        'INTEGRATION_BINDING_REQUIRED',
        `The slot ${request.slot} is not bound to a connection; bind one with platform integrations bind.`,
        { slot: request.slot, reason: 'unbound' },
      );
    }
    if (!binding.capabilities.includes(capability)) {
      throw fail(
        'INTEGRATION_CAPABILITY_NOT_GRANTED',
        `The binding of ${request.slot} does not grant the capability ${capability}.`,
        { slot: request.slot, capability },
      );
    }
    const connection = await connections.get(binding.connectionId);
    if ((await rules.checkLive(binding, connection)) === 'revoke') {
      await bindings.revoke(binding.id);
      throw fail(
        'INTEGRATION_BINDING_REQUIRED',
        `The binding of ${request.slot} is revoked for good: the owner of its personal connection may no longer edit ${request.consumerAppId}. Bind the slot again.`,
        { slot: request.slot, reason: 'revoked' },
      );
    }
    if (connection.condition === 'reconnect_required') {
      throw await this.#reconnect(connection, request);
    }
    return connection;
  }

  async #run(
    request: IntegrationCallRequest,
    provider: ProviderApp,
    contract: IntegrationContract,
    operation: IntegrationContract['operations'][number],
    connection: Connection,
  ): Promise<JsonValue> {
    if (await provider.paused()) {
      throw fail(
        'INTEGRATION_PROVIDER_UNAVAILABLE',
        `"${contract.name}" is unavailable for now: ${provider.appId} is paused until its owner verifies their account.`,
      );
    }
    let credentials: Record<string, string | null>;
    try {
      credentials = await this.#options.tokens.credentials(
        connection.id,
        contract,
        provider,
        request.requestId,
      );
    } catch (error) {
      if (error instanceof PlatformError && error.code === 'INTEGRATION_RECONNECT_REQUIRED') {
        throw await this.#reconnect(connection, request);
      }
      throw error;
    }
    // Credential values are replaced wherever a provider's message might repeat them.
    const hide = new Redactor();
    hide.set(Object.values(credentials).filter((value) => value !== null));
    let output: JsonValue;
    try {
      output = await provider.invoke(operation.function, {
        requestId: request.requestId,
        input: request.input,
        connectionId: connection.id,
        trigger: 'operation',
        operation: operation.name,
        consumerAppId: request.consumerAppId,
        credentials,
        timeoutMs: limits.integration.operationTimeoutSeconds * 1000,
        signal: request.signal,
      });
    } catch (error) {
      throw await this.#providerError(error, connection, request, hide);
    }
    const size = jsonByteLength(output);
    if (size > limits.integration.operationResponseMaxBytes) {
      throw fail(
        'INTEGRATION_PROVIDER_FAILED',
        `${operation.name} answered ${size} bytes of JSON; at most ${limits.integration.operationResponseMaxBytes} are allowed.`,
        { operation: operation.name },
      );
    }
    const problem = operation.output ? jsonSchemaProblem(operation.output, output) : undefined;
    if (problem !== undefined) {
      throw fail(
        'INTEGRATION_PROVIDER_FAILED',
        `${operation.name} answered output that does not match its declared output schema: ${hide.text(problem)}.`,
        { operation: operation.name },
      );
    }
    return output;
  }

  // `INTEGRATION_RECONNECT_REQUIRED` for the connection of the request's slot. An OAuth
  // connection's answer carries where to sign in again only for a caller who may manage the
  // connection, made out to that caller: the link stands in for their sign-in, so it must never
  // reach an anonymous visitor or a member who would then sign the connection in as themselves.
  async #reconnect(
    connection: Connection,
    request: IntegrationCallRequest,
  ): Promise<PlatformError> {
    const slot = request.slot;
    const oauth = findPublisher(this.#options.apps(), connection.integration)?.contract
      .authorization;
    const connectUrl = oauth
      ? await this.#options.reconnectUrl(connection, request.caller)
      : undefined;
    const who =
      connection.kind === 'organisation'
        ? 'an organisation administrator'
        : 'the owner of its personal connection';
    const rejected = `"${connection.integration}" rejected its ${oauth ? 'sign-in' : 'credentials'}`;
    return fail(
      'INTEGRATION_RECONNECT_REQUIRED',
      connectUrl === undefined
        ? `The connection of ${slot} must be reconnected by ${who}: ${rejected}.`
        : `The connection of ${slot} must be reconnected: ${rejected}. Sign in again at details.connectUrl.`,
      { slot, connectionId: connection.id, ...(connectUrl === undefined ? {} : { connectUrl }) },
    );
  }

  // How a provider failure reaches the consumer (spec 7.1, 7.2): a typed 4xx unchanged, 401
  // marks the connection `Reconnect required`, anything else a provider failure.
  async #providerError(
    error: unknown,
    connection: Connection,
    request: IntegrationCallRequest,
    hide: Redactor,
  ): Promise<PlatformError> {
    const integration = connection.integration;
    const known = error instanceof PlatformError ? error : undefined;
    if (known?.status === 401) {
      await this.#options.connections.requireReconnect(connection.id);
      return this.#reconnect(connection, request);
    }
    if (known && known.status >= 400 && known.status < 500 && known.code !== 'FUNCTION_NOT_FOUND') {
      return new PlatformError({
        code: known.code,
        message: hide.text(known.message),
        status: known.status,
        ...(known.details ? { details: hide.value(known.details) } : {}),
      });
    }
    this.#options.print(
      `integration ${integration}: the provider failed: ${hide.text(known ? `${known.code}: ${known.message}` : String(error))}`,
    );
    const retryable = known ? known.retryable : false;
    return fail(
      retryable ? 'INTEGRATION_PROVIDER_UNAVAILABLE' : 'INTEGRATION_PROVIDER_FAILED',
      retryable
        ? `"${integration}" is unavailable for now; try again.`
        : `"${integration}" failed to answer the operation.`,
    );
  }
}

// The code a failed call is audited with; anything else the platform caught is a provider failure.
function codeOf(error: unknown): string {
  return error instanceof PlatformError ? error.code : 'INTEGRATION_PROVIDER_FAILED';
}

function userIdOf(caller: Caller): string {
  if (caller.kind !== 'user') throw new TypeError('a calling_user slot needs a user caller');
  return caller.userId;
}
