import type { JsonValue } from '@platform/errors';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { systemCaller } from '../kernel/caller.ts';
import type { ProviderCall } from './provider-app.ts';

/**
 * Runs a provider app's integration Function (an operation, a webhook) for one connection: as
 * the provider's system identity acting for the connection (`auth.connection_id()`), with
 * `ctx.integration = { connectionId, trigger, operation?, consumerAppId? }` and the connection's
 * credentials readable through `ctx.secrets` for this call only. Answers the Function's result;
 * its errors are thrown as the host reported them.
 */
export async function invokeIntegration(
  invoker: FunctionInvoker,
  functionName: string,
  call: ProviderCall,
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
  return body.result ?? null;
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
  });
  const body = (await response.json()) as { result?: JsonValue };
  return body.result ?? null;
}
