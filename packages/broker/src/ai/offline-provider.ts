import type {
  ImageModelV3,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { JsonObject } from '@platform/errors';
import {
  type AiFixture,
  createOfflineAi,
  type OfflineAi,
  type OfflineTextRequest,
} from '@platform/server/testing';
import type { AiProvider } from './ai-provider.ts';

const MODEL_ID = 'offline';

/**
 * The request the SDK's prompt was built from, as the test kit sees it: the system message is
 * `instructions`, the user message's text is `prompt`, its files are the attachments. Only this
 * shape feeds the offline answer, so the broker and `@platform/server/testing` agree.
 */
function requestOf(options: LanguageModelV3CallOptions): OfflineTextRequest {
  let instructions: string | undefined;
  let prompt = '';
  const attachments: { type: 'file' | 'image' }[] = [];
  for (const message of options.prompt) {
    if (message.role === 'system') instructions = message.content;
    if (message.role !== 'user') continue;
    for (const part of message.content) {
      if (part.type === 'text') prompt += part.text;
      else attachments.push({ type: part.mediaType.startsWith('image/') ? 'image' : 'file' });
    }
  }
  return {
    ...(instructions === undefined ? {} : { instructions }),
    prompt,
    ...(attachments.length === 0 ? {} : { attachments }),
  };
}

function usage(input: string, output: string): LanguageModelV3Usage {
  // Whitespace-separated words stand in for tokens: deterministic, and never zero for text.
  const count = (text: string) => text.split(/\s+/).filter((w) => w !== '').length;
  return {
    inputTokens: { total: count(input), noCache: count(input), cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: count(output), text: count(output), reasoning: 0 },
  };
}

function languageModel(ai: OfflineAi): LanguageModelV3 {
  const answer = (options: LanguageModelV3CallOptions): string => {
    const request = requestOf(options);
    const format = options.responseFormat;
    if (format?.type === 'json') {
      const schema = (format.schema ?? {}) as JsonObject;
      return JSON.stringify(ai.generateObject({ prompt: request.prompt, schema }).object);
    }
    return ai.generateText(request).text;
  };
  return {
    specificationVersion: 'v3',
    provider: 'offline',
    modelId: MODEL_ID,
    supportedUrls: {},
    async doGenerate(options): Promise<LanguageModelV3GenerateResult> {
      const text = answer(options);
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(requestOf(options).prompt, text),
        warnings: [],
      };
    },
    async doStream(options) {
      const request = requestOf(options);
      const chunks =
        options.responseFormat?.type === 'json' ? [answer(options)] : ai.streamText(request);
      const text = chunks.join('');
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: '0' },
        ...chunks.map(
          (delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: '0', delta }),
        ),
        { type: 'text-end', id: '0' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: usage(request.prompt, text),
        },
      ];
      // Pull-based: a cancelled stream stops producing, as a real provider's would.
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          pull(controller) {
            const part = parts.shift();
            if (part === undefined) controller.close();
            else controller.enqueue(part);
          },
        }),
      };
    },
  };
}

function imageModel(ai: OfflineAi): ImageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'offline',
    modelId: MODEL_ID,
    maxImagesPerCall: 1,
    async doGenerate(options) {
      const { data } = ai.generateImage({ prompt: options.prompt ?? '' });
      return {
        images: [data],
        warnings: [],
        response: { timestamp: new Date(0), modelId: MODEL_ID, headers: undefined },
      };
    },
  };
}

/**
 * The default provider of `platform dev`: offline and deterministic, built on the same code as
 * the test kit (`createOfflineAi` of `@platform/server/testing`), with the app's fixtures.
 */
export function createOfflineProvider(fixtures: readonly AiFixture[] = []): AiProvider {
  const ai = createOfflineAi({ fixtures });
  const model = languageModel(ai);
  return {
    name: 'offline',
    text: model,
    vision: model,
    object: model,
    image: imageModel(ai),
    confidential: [],
  };
}
