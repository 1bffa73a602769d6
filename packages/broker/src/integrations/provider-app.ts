import type { JsonValue } from '@platform/errors';
import type { IntegrationContract, Manifest } from '@platform/schema/manifest';

/** One invocation of a provider's integration Function for a connection. */
export interface ProviderCall {
  readonly requestId: string;
  readonly input: JsonValue;
  readonly connectionId: string;
  /**
   * What runs it: an operation call (with `operation` and `consumerAppId`), a webhook, the
   * sync schedule, or an OAuth exchange or refresh.
   */
  readonly trigger: 'operation' | 'webhook' | 'sync' | 'oauth';
  readonly operation?: string | undefined;
  readonly consumerAppId?: string | undefined;
  /** The connection's credential values, readable through `ctx.secrets` for this call only. */
  readonly credentials: Readonly<Record<string, string | null>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** An app of the organisation as the integration calls reach it. */
export interface ProviderApp {
  readonly appId: string;
  /** The platform.yaml it serves now. */
  readonly manifest: Manifest;
  /** Runs one of its system Functions for an integration call; answers the Function's result. */
  invoke(functionName: string, call: ProviderCall): Promise<JsonValue>;
  /** Runs one of its system Functions as the app's system identity (an event handler). */
  runSystem(functionName: string, input: JsonValue, requestId: string): Promise<JsonValue>;
  /**
   * Whether the app is paused for its owner's verification (spec 3.3): its Functions do not
   * run, so no sync starts and no event is delivered to it until it resumes.
   */
  paused(): Promise<boolean>;
}

/** The app of `apps` that publishes the integration `name` now, with its contract. */
export function findPublisher(
  apps: readonly ProviderApp[],
  name: string,
): { provider: ProviderApp; contract: IntegrationContract } | undefined {
  for (const app of apps) {
    const contract = app.manifest.provides?.integration;
    if (contract?.name === name) return { provider: app, contract };
  }
  return undefined;
}
