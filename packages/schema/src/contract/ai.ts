import { z } from 'zod';
import { contextRoutes } from '../routes.ts';
import { base64, fileRef, jsonObject, jsonValue } from './common.ts';
import { defineRoute } from './define.ts';

/** The in-memory image types an attachment may have (spec 2.6). */
export const imageContentTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

/** An attachment as sent: a managed file by ref, or image bytes in base64. */
export const attachmentSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('file'),
    file: fileRef,
    detail: z.enum(['auto', 'original']).optional(),
  }),
  z.strictObject({
    type: z.literal('image'),
    data: base64,
    contentType: z.enum(imageContentTypes),
  }),
]);

const attachments = z.array(attachmentSchema).optional();
const aiErrors = [
  'AI_INPUT_INVALID',
  'AI_PROVIDER_FAILED',
  'AI_PROVIDER_UNAVAILABLE',
  'AI_OUTPUT_INVALID',
  'FILE_NOT_FOUND',
  'FILE_INPUT_CHANGED',
] as const;

const textRequest = z.strictObject({
  instructions: z.string().optional(),
  prompt: z.string().min(1),
  attachments,
});

/** `ai.generateText({ instructions?, prompt, attachments? })`. */
export const aiGenerateText = defineRoute('aiGenerateText', contextRoutes.aiGenerateText, {
  summary: 'Generate text with the platform-selected model.',
  request: textRequest,
  response: z.strictObject({ text: z.string() }),
  errors: aiErrors,
});

/**
 * `ai.streamText(...)`: the text as it is generated, in text frames (`TEXT_FRAMES_CONTENT_TYPE`),
 * so a provider failure after the first chunk still reaches the Function with its code.
 */
export const aiStreamText = defineRoute('aiStreamText', contextRoutes.aiStreamText, {
  summary: 'Generate text and stream it as UTF-8.',
  request: textRequest,
  response: z.never(),
  responseKind: 'text-frames',
  errors: aiErrors,
});

/** `ai.generateObject({ prompt, schema, attachments? })`: `schema` is the JSON Schema of the input schema. */
export const aiGenerateObject = defineRoute('aiGenerateObject', contextRoutes.aiGenerateObject, {
  summary: 'Generate a JSON value matching a JSON Schema.',
  request: z.strictObject({ prompt: z.string().min(1), schema: jsonObject, attachments }),
  response: z.strictObject({ object: jsonValue }),
  errors: aiErrors,
});

/** `ai.generateImage({ prompt })`: PNG bytes in base64. */
export const aiGenerateImage = defineRoute('aiGenerateImage', contextRoutes.aiGenerateImage, {
  summary: 'Generate a PNG image.',
  request: z.strictObject({ prompt: z.string().min(1) }),
  response: z.strictObject({
    data: base64,
    contentType: z.literal('image/png'),
    revisedPrompt: z.string().optional(),
  }),
  errors: [
    'AI_INPUT_INVALID',
    'AI_PROVIDER_FAILED',
    'AI_PROVIDER_UNAVAILABLE',
    'AI_OUTPUT_INVALID',
  ],
});
