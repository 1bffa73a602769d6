import { z } from 'zod';
import { hostRoutes } from '../routes.ts';
import { isSdkVersion } from '../sdk-versions.ts';
import { jsonValue, user } from './common.ts';
import { defineRoute } from './define.ts';

/** `http://` or `https://`, a host and an optional port: an origin, nothing after it. */
const HTTP_ORIGIN = /^https?:\/\/[^\s/?#@]+$/;

/** A value as `JSON.parse` returns it. */
type JsonValue = z.output<typeof jsonValue>;

/** The route of a Function route call (SDK 2.3.0); `null` for non-route calls. */
export const httpInfoSchema = z.strictObject({
  method: z.string().min(1),
  pathname: z.string().startsWith('/'),
  params: z.record(z.string(), z.string()),
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});

/** The job a queue consumer runs for; `null` otherwise. */
export const jobInfoSchema = z.strictObject({
  id: z.string().min(1),
  queue: z.string().min(1),
  attempt: z.int().min(1),
});

/** The integration invocation (SDK 2.6.0); `null` outside one. */
export const integrationInfoSchema = z.strictObject({
  connectionId: z.string().min(1),
  trigger: z.enum(['operation', 'sync', 'webhook', 'oauth']),
  operation: z.string().min(1).optional(),
  consumerAppId: z.string().min(1).optional(),
});

/**
 * A search declared under `data.search`, as far as its options are checked against it
 * (`checkSearchOptions`): which components it declares, the vector's model and dimensions, and
 * the filter columns. A search has a vector component exactly when `model` (and `dimensions`) are
 * not `null`.
 */
export const searchDeclarationSchema = z
  .strictObject({
    /**
     * Whether `fullText` is declared. Brokers before this field sent none; it then reads as
     * `true`, leaving that check to the broker as before.
     */
    fullText: z.boolean().default(true),
    /** The declared embedding model identity; `null` when the search has no vector component. */
    model: z.string().min(1).nullable(),
    /** The declared vector dimensions; `null` when the search has no vector component. */
    dimensions: z.int().min(1).nullable(),
    /** Columns that accept scalar equality filters. */
    filters: z.array(z.string().min(1)),
  })
  .refine((search) => (search.model === null) === (search.dimensions === null), {
    message: 'model and dimensions are both null (no vector) or both set',
  });

/**
 * What platform.yaml declares that the SDK checks before sending a request: secret names (the
 * app's `secrets` plus, in provider Functions, credential names and the OAuth access token
 * name), named searches and email sender aliases.
 */
export const declarationsSchema = z.strictObject({
  secrets: z.array(z.string().min(1)),
  searches: z.record(z.string().min(1), searchDeclarationSchema),
  emailAliases: z.array(z.string().min(1)),
});

/**
 * One invocation of one Function, as the broker posts it to the function host. Carries the
 * identity, the pinned SDK version and the invocation token the context uses to call the
 * broker back. The token is scoped to this invocation and expires with it.
 */
export const invocationSchema = z.strictObject({
  requestId: z.string().min(1),
  function: z.string().min(1),
  /** `runtime.sdk.version` of platform.yaml. */
  sdkVersion: z.string().refine(isSdkVersion, { message: 'Must be a major.minor.patch version' }),
  environment: z.enum(['development', 'production']),
  /**
   * The raw input; the host parses it with the Function's schema. Cron sends its envelope. Not
   * walked here: the host reads the invocation with `JSON.parse`, so it is JSON already, and the
   * Function's schema checks it next (walking it twice cost about 7 us a call for a 40-byte
   * input, and more for larger ones).
   */
  input: z.custom<JsonValue>((value) => value !== undefined, 'Required'),
  user: user.nullable(),
  job: jobInfoSchema.nullable(),
  http: httpInfoSchema.nullable(),
  integration: integrationInfoSchema.nullable(),
  broker: z.strictObject({
    /** Origin the runtime routes are resolved against, such as `http://127.0.0.1:4310`. */
    url: z.string().regex(HTTP_ORIGIN, 'Must be an http(s) origin'),
    /** Sent as `Authorization: Bearer <token>` on every runtime route. */
    token: z.string().min(1),
  }),
  declared: declarationsSchema,
});

/** The host's answer to a non-streaming invocation. */
export const invocationResultSchema = z.strictObject({ result: jsonValue });

/** `POST /_platform/invoke`: run the Function once. */
export const invoke = defineRoute('invoke', hostRoutes.invoke, {
  summary: 'Run the bundled Function for one invocation.',
  request: invocationSchema,
  response: invocationResultSchema,
  errors: ['INVALID_INPUT', 'FUNCTION_FAILED'],
});

/** `GET /_platform/health`: the host is up. */
export const health = defineRoute('health', hostRoutes.health, {
  summary: 'Readiness of the function host.',
  request: z.undefined(),
  response: z.strictObject({ ok: z.literal(true), sdkVersion: z.string() }),
});

/** A parsed invocation. */
export type Invocation = z.output<typeof invocationSchema>;
/** What platform.yaml declares that the SDK checks client-side. */
export type Declarations = z.output<typeof declarationsSchema>;
