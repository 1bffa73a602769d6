import { PlatformError } from '@platform/errors';
import { toJSONSchema } from '@platform/schema';
import { decodeTextFrames } from '@platform/schema/contract';
import { checkAttachments } from './ai-checks.ts';
import { fromBase64 } from './bytes.ts';
import type { RuntimeClient } from './transport.ts';
import type { AiClient, TextRequest } from './types.ts';

function prompt(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PlatformError({
      code: 'AI_INPUT_INVALID',
      message: 'prompt must be a non-empty string.',
    });
  }
  return value;
}

function textBody(request: TextRequest) {
  const attachments = checkAttachments(request.attachments);
  return {
    prompt: prompt(request.prompt),
    ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
    ...(attachments === undefined ? {} : { attachments }),
  };
}

/** `ctx.ai`: attachments are checked before anything is sent; the platform picks the model. */
export function createAi(client: RuntimeClient): AiClient {
  return {
    async generateText(request) {
      return client.call('aiGenerateText', {}, textBody(request));
    },
    async streamText(request) {
      const frames = await client.stream('aiStreamText', {}, textBody(request));
      return decodeTextFrames(frames, client.requestId);
    },
    async generateObject(request) {
      const attachments = checkAttachments(request.attachments);
      const { object } = await client.call(
        'aiGenerateObject',
        {},
        {
          prompt: prompt(request.prompt),
          schema: toJSONSchema(request.schema) as Record<string, never>,
          ...(attachments === undefined ? {} : { attachments }),
        },
      );
      const parsed = request.schema.safeParse(object);
      if (!parsed.success) {
        throw new PlatformError({
          code: 'INVALID_RESPONSE',
          message: 'The generated object does not match the schema.',
          ...(parsed.error.details === undefined ? {} : { details: parsed.error.details }),
          requestId: client.requestId,
        });
      }
      return { object: parsed.data as never };
    },
    async generateImage(request) {
      const result = await client.call('aiGenerateImage', {}, { prompt: prompt(request.prompt) });
      return {
        data: fromBase64(result.data),
        contentType: result.contentType,
        ...(result.revisedPrompt === undefined ? {} : { revisedPrompt: result.revisedPrompt }),
      };
    },
  };
}
