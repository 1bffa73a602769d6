import { PlatformError } from '@platform/errors';
import type { IntegrationContract, Manifest } from '@platform/schema/manifest';
import type { CallRequest } from '../functions/invoker.ts';
import { systemCaller } from '../kernel/caller.ts';
import type { Connections } from './connections.ts';
import type { DevIntegrationModes } from './dev-integration-modes.ts';

/** What a direct invocation of a provider's integration Function runs with. */
export type DirectIntegration = Pick<CallRequest, 'caller' | 'integration' | 'credentials'>;

/**
 * How `platform invoke` runs the Function `name` of a provider app (Appendix 1, 3): its
 * operation, sync and webhook Functions run for the session's test connection (chosen with
 * `PUT /v1/apps/{appId}/dev/integrations`), receiving its credentials (and current OAuth access
 * token), `ctx.integration` and
 * `auth.connection_id()`; without one they are `INTEGRATION_TEST_CONNECTION_REQUIRED`. OAuth
 * exchange and refresh Functions are never invoked directly
 * (`INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE`). Any other Function: `undefined`, a plain call.
 */
export async function directIntegration(
  name: string,
  app: {
    readonly appId: string;
    readonly manifest: Manifest;
    readonly modes: DevIntegrationModes;
    readonly connections: Connections;
    /** What the Function receives for a connection: its values and current OAuth access token. */
    readonly credentials: (
      connectionId: string,
      contract: IntegrationContract,
    ) => Promise<Record<string, string | null>>;
  },
): Promise<DirectIntegration | undefined> {
  const contract = app.manifest.provides?.integration;
  if (!contract) return undefined;
  const oauth = contract.authorization;
  if (oauth && (name === oauth.exchange || name === oauth.refresh)) {
    throw new PlatformError({
      code: 'INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE',
      message: `${name} exchanges or refreshes OAuth tokens; only the platform calls it, during a connection's sign-in.`,
      details: { name },
    });
  }
  const operation = contract.operations.find((one) => one.function === name);
  const trigger = operation
    ? 'operation'
    : contract.sync?.function === name
      ? 'sync'
      : contract.webhook?.function === name
        ? 'webhook'
        : undefined;
  if (trigger === undefined) return undefined;
  const connectionId = app.modes.testConnection(app.appId);
  if (connectionId === undefined) {
    throw new PlatformError({
      code: 'INTEGRATION_TEST_CONNECTION_REQUIRED',
      message: `${name} runs for a connection of "${contract.name}": choose a test connection first (platform integrations test-connection <connection id>).`,
      details: { name },
    });
  }
  const connection = await app.connections.get(connectionId);
  return {
    caller: systemCaller(connection.id),
    integration: {
      connectionId: connection.id,
      trigger,
      ...(operation ? { operation: operation.name } : {}),
    },
    credentials: await app.credentials(connection.id, contract),
  };
}
