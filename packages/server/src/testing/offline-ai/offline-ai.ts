import { type JsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { type AiFixture, fixtureMatches } from './fixtures.ts';
import { offlineImage } from './offline-image.ts';
import { offlineObject } from './offline-object.ts';
import { type OfflineTextRequest, offlineChunks, offlineText } from './offline-text.ts';

/** The deterministic AI both the broker (with no provider configured) and the test kit use. */
export interface OfflineAi {
  /** The whole text answer. */
  generateText(request: OfflineTextRequest): { text: string };
  /** The same text, in the chunks `streamText` sends. */
  streamText(request: OfflineTextRequest): string[];
  /** A value valid for `schema`; `AI_INPUT_INVALID` when none exists. */
  generateObject(request: { prompt: string; schema: JsonObject }): { object: JsonValue };
  /** A PNG derived from the prompt. */
  generateImage(request: { prompt: string }): { data: Uint8Array; contentType: 'image/png' };
}

/** Options of {@link createOfflineAi}. */
export interface OfflineAiOptions {
  /** Pinned answers, tried in order before anything is derived. */
  readonly fixtures?: readonly AiFixture[] | undefined;
}

function checkPrompt(prompt: string): void {
  if (prompt.trim() === '') {
    throw new PlatformError({
      code: 'AI_INPUT_INVALID',
      message: 'prompt must be a non-empty string.',
      details: { field: 'prompt' },
    });
  }
}

/**
 * The offline, deterministic AI: the same request gives byte-identical answers on every run
 * and machine. Fixtures pin answers for chosen prompts; everything else is derived from the
 * request (see `offlineText`, `offlineObject`, `offlineImage`).
 */
export function createOfflineAi(options: OfflineAiOptions = {}): OfflineAi {
  const fixtures = options.fixtures ?? [];
  const pinned = <K extends 'text' | 'object'>(prompt: string, key: K) =>
    fixtures.find((f) => f[key] !== undefined && fixtureMatches(f, prompt))?.[key];
  const text = (request: OfflineTextRequest) => {
    checkPrompt(request.prompt);
    return pinned(request.prompt, 'text') ?? offlineText(request);
  };
  return {
    generateText: (request) => ({ text: text(request) }),
    streamText: (request) => offlineChunks(text(request)),
    generateObject(request) {
      checkPrompt(request.prompt);
      const object = pinned(request.prompt, 'object');
      return { object: object ?? offlineObject(request.prompt, request.schema) };
    },
    generateImage(request) {
      checkPrompt(request.prompt);
      return { data: offlineImage(request.prompt), contentType: 'image/png' };
    },
  };
}
