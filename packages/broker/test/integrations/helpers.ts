import type { JsonValue } from '@platform/errors';
import type { Manifest } from '@platform/schema/manifest';
import type { ProviderApp, ProviderCall } from '../../src/integrations/provider-app.ts';

const never = () => Promise.reject(new Error('this app runs no Function in this test'));

/** An app of the organisation whose Functions are plain callbacks (none by default). */
export function orgApp(
  appId: string,
  manifest: Manifest,
  invoke: (fn: string, call: ProviderCall) => Promise<JsonValue> = never,
): ProviderApp {
  return { appId, manifest, invoke, runSystem: never, paused: async () => false };
}
