import { isJsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { checkEventData, type Invocation } from '@platform/schema/contract';
import type { RuntimeClient } from './transport.ts';
import type { IntegrationInfo, IntegrationsClient } from './types.ts';

const EVENT_TYPE = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+$/;

/** `ctx.integrations` (SDK 2.2.0): operations of the integrations bound to the app's slots. */
export function createIntegrations(client: RuntimeClient): IntegrationsClient {
  return {
    use(slot) {
      if (typeof slot !== 'string' || slot === '')
        throw new TypeError('slot must be a non-empty string');
      return {
        async call<T extends JsonValue = JsonValue>(
          operation: string,
          input: JsonValue = {},
        ): Promise<T> {
          client.requireFeature('integrations', 'integrations.use');
          if (typeof operation !== 'string' || operation === '') {
            throw new TypeError('operation must be a non-empty string');
          }
          const { output } = await client.call('integrationsCall', { slot }, { operation, input });
          return output as T;
        },
      };
    },
  };
}

function eventError(message: string): PlatformError {
  return new PlatformError({ code: 'INTEGRATION_EVENT_INVALID', message });
}

/** `ctx.integration` (SDK 2.6.0) for an integration invocation, with `emit`. */
export function createIntegration(
  client: RuntimeClient,
  info: NonNullable<Invocation['integration']>,
): IntegrationInfo {
  return Object.freeze({
    connectionId: info.connectionId,
    trigger: info.trigger,
    ...(info.operation === undefined ? {} : { operation: info.operation }),
    ...(info.consumerAppId === undefined ? {} : { consumerAppId: info.consumerAppId }),
    async emit(event: { type: string; id: string; data: unknown }): Promise<number> {
      client.requireFeature('integration', 'integration.emit');
      if (typeof event !== 'object' || event === null)
        throw eventError('emit takes { type, id, data }.');
      if (typeof event.type !== 'string' || !EVENT_TYPE.test(event.type)) {
        throw eventError('The event type must be dotted lowercase, such as invoice.paid.');
      }
      if (typeof event.id !== 'string' || event.id === '') {
        throw eventError(
          "The event id must be the provider's stable change identifier (a non-empty string).",
        );
      }
      if (!isJsonObject(event.data)) throw eventError('The event data must be a JSON object.');
      checkEventData(event.data);
      const { deliveries } = await client.call(
        'integrationEmit',
        {},
        {
          type: event.type,
          id: event.id,
          data: event.data,
        },
      );
      return deliveries;
    },
  });
}
