import type { JsonObject, JsonValue } from '@platform/errors';
import type { Manifest } from '@platform/schema/manifest';
import type { InvocationGrant } from '../functions/invocation-tokens.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { type DirectIntegration, directIntegration } from './direct-invocation.ts';
import type { IntegrationCallRequest } from './integration-calls.ts';
import type { OrgIntegrations } from './org-integrations.ts';
import type { ProviderApp } from './provider-app.ts';
import { invokeIntegration, invokeSystem } from './provider-invocation.ts';

/** The integration calls of one app, as its Functions make them. */
export type AppIntegrationCalls = (
  call: Omit<IntegrationCallRequest, 'consumerAppId' | 'manifest'>,
) => Promise<JsonValue>;

/** `integration.emit` of one provider app, for the invocation that emits. */
export type AppIntegrationEmit = (
  invocation: InvocationGrant['integration'],
  event: { readonly type: string; readonly id: string; readonly data: JsonObject },
) => number | Promise<number>;

/** One app's side of its organisation's integrations, as a consumer and as a provider. */
export interface AppIntegrations {
  /** `ctx.integrations.use(slot).call(...)` of the app's Functions. */
  readonly calls: AppIntegrationCalls;
  /** `ctx.integration.emit(...)` of the app's integration Functions. */
  readonly emit: AppIntegrationEmit;
  /**
   * How `platform invoke` runs the Function `name`: for the session's test connection when it
   * is an integration Function, `undefined` for a plain call.
   */
  direct(name: string): Promise<DirectIntegration | undefined>;
}

/**
 * The consumer adapter: the organisation's integrations as the app with id `appId` and the
 * platform.yaml `manifest` calls them.
 */
export function appIntegrations(
  org: OrgIntegrations,
  appId: string,
  manifest: Manifest,
): AppIntegrations {
  return {
    calls: (call) => org.calls.call({ ...call, consumerAppId: appId, manifest }),
    emit: (invocation, event) => org.events.emit(appId, invocation, event),
    direct: (name) =>
      directIntegration(name, {
        appId,
        manifest,
        modes: org.modes,
        connections: org.connections,
        credentials: (connectionId, contract) =>
          org.tokens.credentials(
            connectionId,
            contract,
            org.admin.published(contract.name).provider,
            `direct-${connectionId}`,
          ),
      }),
  };
}

/** What the provider adapter reads of the app as it serves now. */
export interface ServingApp {
  readonly manifest: Manifest;
  readonly invoker: FunctionInvoker;
  /** Whether the app is paused for its owner's verification (spec 3.3). */
  paused(): Promise<boolean>;
}

/**
 * The provider adapter: the app with id `appId` as the organisation's integration calls reach
 * it. `serving` answers the app as it serves now (a restart replaces it); `undefined` while it
 * is still starting, when calls are refused and the app counts as not paused. `manifest` is the
 * platform.yaml it starts with.
 */
export function providerApp(
  appId: string,
  manifest: Manifest,
  serving: () => ServingApp | undefined,
): ProviderApp {
  const started = (): ServingApp => {
    const app = serving();
    if (!app) throw new Error('The app is still starting.');
    return app;
  };
  return {
    appId,
    get manifest() {
      return serving()?.manifest ?? manifest;
    },
    invoke: (fn, call) => {
      const app = started();
      return invokeIntegration(app.invoker, fn, call, app.manifest.provides?.integration);
    },
    runSystem: (fn, input, requestId) => invokeSystem(started().invoker, fn, input, requestId),
    paused: async () => (await serving()?.paused()) ?? false,
  };
}
