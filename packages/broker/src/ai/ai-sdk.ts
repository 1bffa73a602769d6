import type * as Sdk from 'ai';

/** The Vercel AI SDK's module. */
export type AiSdk = typeof Sdk;

let loading: Promise<AiSdk> | undefined;
let loaded: AiSdk | undefined;

/**
 * The Vercel AI SDK, loaded with the first AI call rather than with the broker: most runs make
 * none, and it is among the broker's largest imports.
 */
export function loadAiSdk(): Promise<AiSdk> {
  loading ??= import('ai').then((sdk) => {
    loaded = sdk;
    return sdk;
  });
  return loading;
}

/** The AI SDK once a call has loaded it ({@link loadAiSdk}), else `undefined`. */
export function loadedAiSdk(): AiSdk | undefined {
  return loaded;
}
