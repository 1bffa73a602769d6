import type { ImageModelV3, LanguageModelV3 } from '@ai-sdk/provider';

/**
 * The one provider interface of the broker's AI: a model per capability, each a Vercel AI SDK
 * model (`LanguageModelV3`, `ImageModelV3`), so any provider package of the SDK plugs in.
 * Which provider and which models serve an app is the broker's configuration, never the app's:
 * Functions see neither the models nor the provider.
 */
export interface AiProvider {
  /** A name for the broker's own log and the dashboard (`offline`, `openai-compatible`, …). */
  readonly name: string;
  /** `generateText` and `streamText` without attachments. */
  readonly text: LanguageModelV3;
  /** Text calls with image or PDF attachments. */
  readonly vision: LanguageModelV3;
  /** `generateObject`. */
  readonly object: LanguageModelV3;
  /** `generateImage`. */
  readonly image: ImageModelV3;
  /**
   * The address of the developer's endpoint as the broker's log names it on a failure (scheme,
   * host and path: no credentials or query), or `undefined` for a provider with none.
   */
  readonly endpoint?: string | undefined;
  /**
   * Strings that must never leave the broker (the API key, model names, and an endpoint's URL
   * when it carries credentials): they are added to the redactor of every log line and Function
   * output.
   */
  readonly confidential: readonly string[];
}
