import { type JsonValue, PlatformError } from '@platform/errors';
import { Redactor } from '@platform/schema/contract';
import type { IntegrationContract } from '@platform/schema/manifest';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { systemCaller } from '../kernel/caller.ts';
import type { ProviderCall } from './provider-app.ts';

/**
 * Runs a provider app's integration Function (an operation, a webhook) for one connection: as
 * the provider's system identity acting for the connection (`auth.connection_id()`), with
 * `ctx.integration = { connectionId, trigger, operation?, consumerAppId? }` and the connection's
 * credentials readable through `ctx.secrets` for this call only. Answers the Function's result;
 * its errors are thrown as the host reported them. The result of an operation or a webhook
 * leaves the provider (to the consumer, to the webhook's sender), so one that holds the value of
 * a `secret` credential of `contract` or the access token is refused with
 * `INTEGRATION_PROVIDER_FAILED`, naming the credential, never its value (without `contract`,
 * every credential counts as secret).
 */
export async function invokeIntegration(
  invoker: FunctionInvoker,
  functionName: string,
  call: ProviderCall,
  contract?: IntegrationContract | undefined,
): Promise<JsonValue> {
  const response = await invoker.call(functionName, {
    requestId: call.requestId,
    input: call.input,
    caller: systemCaller(call.connectionId),
    origin: 'platform',
    timeoutMs: call.timeoutMs,
    ...(call.signal ? { signal: call.signal } : {}),
    integration: {
      connectionId: call.connectionId,
      trigger: call.trigger,
      ...(call.operation === undefined ? {} : { operation: call.operation }),
      ...(call.consumerAppId === undefined ? {} : { consumerAppId: call.consumerAppId }),
    },
    credentials: call.credentials,
  });
  const body = (await response.json()) as { result?: JsonValue };
  const result = body.result ?? null;
  if (call.trigger === 'operation' || call.trigger === 'webhook') {
    refuseSecretsIn(result, functionName, secretCredentials(call.credentials, contract));
  }
  return result;
}

// Scrubbing would hand the consumer data that silently differs from what the provider meant
// (and that it may store); a refusal names the mistake where the provider's developer sees it.
function refuseSecretsIn(
  result: JsonValue,
  functionName: string,
  known: readonly (readonly [name: string, value: string])[],
): void {
  const finder = new Redactor();
  finder.set(known.map(([, value]) => value));
  const found = finder.find(result);
  if (found === undefined) return;
  const name = known.find(([, value]) => value === found)?.[0] ?? 'a credential';
  throw new PlatformError({
    code: 'INTEGRATION_PROVIDER_FAILED',
    message: `${functionName} answered a result that contains the value of the connection's secret credential ${name}; a secret credential never leaves the provider: return what was fetched with it, not the credential.`,
    details: { function: functionName, credential: name },
  });
}

// The credentials whose values must not leave: those declared `secret` (a region or an account
// name a provider may well return is not) and the OAuth access token.
function secretCredentials(
  credentials: ProviderCall['credentials'],
  contract: IntegrationContract | undefined,
): [name: string, value: string][] {
  const secret = contract
    ? new Set([
        ...contract.credentials.filter((one) => one.secret).map((one) => one.name),
        ...(contract.authorization ? [contract.authorization.accessToken] : []),
      ])
    : undefined;
  return Object.entries(credentials).filter(
    (entry): entry is [string, string] =>
      entry[1] !== null && (secret === undefined || secret.has(entry[0])),
  );
}

/** Runs an app's system Function as its system identity (an event handler); answers its result. */
export async function invokeSystem(
  invoker: FunctionInvoker,
  functionName: string,
  input: JsonValue,
  requestId: string,
): Promise<JsonValue> {
  const response = await invoker.call(functionName, {
    requestId,
    input,
    caller: systemCaller(),
    origin: 'platform',
    via: 'event',
  });
  const body = (await response.json()) as { result?: JsonValue };
  return body.result ?? null;
}
