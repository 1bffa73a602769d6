import { z } from 'zod';
import { browserRoutes } from '../routes.ts';
import { jsonValue, timestamp } from './common.ts';
import { defineRoute } from './define.ts';

/** The current user as the browser sees it (spec 2.1). */
export const browserUserSchema = z.strictObject({
  id: z.string().min(1),
  displayName: z.string().optional(),
  email: z.string().optional(),
});

/** `POST /_platform/api/session`: a short-lived JWT, never a refresh token. */
export const session = defineRoute('session', browserRoutes.session, {
  summary: 'Exchange the HttpOnly session cookie for a short-lived access token.',
  request: z.undefined(),
  response: z.union([
    z.strictObject({ user: browserUserSchema, token: z.string().min(1), expiresAt: timestamp }),
    z.strictObject({ user: z.null(), token: z.null(), expiresAt: z.null() }),
  ]),
  errors: ['AUTH_REQUIRED'],
});

const functionErrors = [
  'FUNCTION_NOT_FOUND',
  'FUNCTION_NOT_CALLABLE',
  'FUNCTION_FAILED',
  'FUNCTION_TIMEOUT',
  'FUNCTION_UNAVAILABLE',
  'INVALID_INPUT',
  'AUTH_REQUIRED',
] as const;

/** `POST /_platform/api/functions/:name`: the body is the JSON input itself. */
export const functionCall = defineRoute('functionCall', browserRoutes.functionCall, {
  summary: 'Call a Function with JSON input and receive its JSON result.',
  request: jsonValue,
  response: z.strictObject({ result: jsonValue }),
  errors: functionErrors,
});

/** `POST /_platform/api/functions/:name/stream`: the Function's bytes, streamed. */
export const functionStream = defineRoute('functionStream', browserRoutes.functionStream, {
  summary: 'Call a streaming Function with JSON input and receive its bytes as they come.',
  request: jsonValue,
  response: z.never(),
  responseKind: 'byte-stream',
  errors: functionErrors,
});
