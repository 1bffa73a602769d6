import { z } from 'zod';
import { contextRoutes } from '../routes.ts';
import { jsonObject, jsonValue, ok, timestamp } from './common.ts';
import { defineRoute } from './define.ts';

/** `integrations.use(slot).call(operation, input)` (SDK 2.2.0). */
export const integrationsCall = defineRoute('integrationsCall', contextRoutes.integrationsCall, {
  summary: "Call an operation of the integration bound to one of the app's slots.",
  request: z.strictObject({ operation: z.string().min(1), input: jsonValue }),
  response: z.strictObject({ output: jsonValue }),
  errors: [
    'INTEGRATION_SLOT_NOT_DECLARED',
    'INTEGRATION_RECONNECT_REQUIRED',
    'INTEGRATION_CONNECTION_REQUIRED',
    'INTEGRATION_USER_REQUIRED',
    'INTEGRATION_PROVIDER_FAILED',
    'INTEGRATION_PROVIDER_UNAVAILABLE',
  ],
});

/** `integration.emit({ type, id, data })` (SDK 2.6.0): answers the number of new deliveries. */
export const integrationEmit = defineRoute('integrationEmit', contextRoutes.integrationEmit, {
  summary: 'Emit an integration event for the current connection.',
  request: z.strictObject({
    type: z.string().regex(/^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+$/),
    id: z.string().min(1).max(255),
    data: jsonObject,
  }),
  response: z.strictObject({ deliveries: z.int().min(0) }),
  errors: ['INTEGRATION_EVENT_INVALID', 'LIMIT_EXCEEDED'],
});

/** `secrets.get(NAME)` / `secrets.require(NAME)`: `value` is `null` when declared but unset. */
export const secretsGet = defineRoute('secretsGet', contextRoutes.secretsGet, {
  summary: 'Read the value of a declared secret (or a connection credential).',
  request: z.strictObject({ name: z.string().regex(/^[A-Z][A-Z0-9_]*$/) }),
  response: z.strictObject({ value: z.string().nullable() }),
  errors: ['SECRET_NOT_DECLARED'],
});

/** Log levels of `log`. */
export const logLevels = ['debug', 'info', 'warn', 'error'] as const;

/** One structured log entry (secret values already redacted by the SDK). */
export const logEntrySchema = z.strictObject({
  level: z.enum(logLevels),
  message: z.string(),
  fields: jsonObject.optional(),
  at: timestamp,
});

/** `log.*`: entries are batched and flushed at the latest when the invocation ends. */
export const log = defineRoute('log', contextRoutes.log, {
  summary: 'Append structured log entries of the invocation.',
  request: z.strictObject({ entries: z.array(logEntrySchema).min(1).max(100) }),
  response: ok,
  errors: [],
});
