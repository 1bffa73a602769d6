import { z } from 'zod';
import { limits } from '../limits.ts';
import { featureSince } from '../sdk-versions.ts';
import { namingRules } from './patterns.ts';

const text = (description: string) => z.string().min(1).describe(description);
const functionRef = (description: string) =>
  z.string().regex(namingRules.functionName.pattern).describe(description);

/** A JSON Schema object (only its being an object is checked). */
const jsonSchemaObject = z.record(z.string(), z.json());

/** One credential field of an integration contract (spec 2.9). */
export const credentialSchema = z.strictObject({
  name: z
    .string()
    .regex(namingRules.secretName.pattern)
    .describe('Variable name; follows secret naming rules and differs from the app secrets.'),
  label: text('Label shown to the person entering the value.'),
  secret: z.boolean().default(true).describe('Write-only secret value. Default true.'),
  optional: z.boolean().default(false).describe('May be left empty. Default false.'),
});

/** The OAuth authorization-code block of an integration contract (spec 2.10). */
export const oauthSchema = z.strictObject({
  type: z.literal('oauth2').describe('Only `oauth2` (authorization-code flow).'),
  authorizationUrl: z.string().min(1).describe("The provider's authorization URL (https)."),
  clientId: text('Provider client identifier.'),
  scopes: z.array(z.string().min(1)).default([]).describe('Scopes to request.'),
  exchange: functionRef('System Function that exchanges the authorization code for tokens.'),
  refresh: functionRef('System Function that refreshes the access token.').optional(),
  pkce: z.boolean().default(true).describe('Use PKCE. Default true.'),
  accessToken: z
    .string()
    .regex(namingRules.secretName.pattern)
    .default('OAUTH_ACCESS_TOKEN')
    .describe('Name under which Functions read the access token. Default OAUTH_ACCESS_TOKEN.'),
});

/** A capability consumers request (spec 2.9). */
export const capabilitySchema = z.strictObject({
  name: z.string().regex(namingRules.capabilityName.pattern).describe('Capability name.'),
  description: text('What the capability allows.'),
});

/** An operation of an integration contract (spec 2.9). */
export const operationSchema = z.strictObject({
  name: z
    .string()
    .regex(namingRules.operationName.pattern)
    .describe('Dotted camelCase name, e.g. contacts.findByEmail.'),
  description: text('What the operation does.'),
  capability: z.string().min(1).describe('The declared capability the operation belongs to.'),
  function: functionRef('The system Function that implements the operation.'),
  input: jsonSchemaObject.optional().describe('JSON Schema of the input (documentation only).'),
  output: jsonSchemaObject.optional().describe('JSON Schema of the output (documentation only).'),
  fake: z
    .json()
    .describe(
      `Static output returned in development, at most ${limits.integration.fakeOutputMaxBytes} bytes as JSON.`,
    ),
});

/** An event type an integration emits (spec 2.9). */
export const eventSchema = z.strictObject({
  type: z
    .string()
    .regex(namingRules.eventType.pattern)
    .describe('Dotted lowercase type, e.g. contact.created.'),
  capability: z.string().min(1).describe('The declared capability the event belongs to.'),
  description: text('When the event is emitted.'),
  fake: z.record(z.string(), z.json()).describe('Default synthetic payload (a JSON object).'),
});

/** `provides.integration`: the contract this app publishes to its organisation (schema 3). */
export const integrationContractSchema = z.strictObject({
  name: z
    .string()
    .regex(namingRules.integrationName.pattern)
    .describe('Lowercase kebab-case name, unique in the organisation.'),
  title: text('Display title.'),
  description: z.string().optional().describe('Display description.'),
  credentials: z
    .array(credentialSchema)
    .max(limits.integration.maxCredentials)
    .default([])
    .describe(`Credential fields, at most ${limits.integration.maxCredentials}.`),
  authorization: oauthSchema.optional(),
  capabilities: z.array(capabilitySchema).min(1).describe('Capabilities consumers request.'),
  operations: z.array(operationSchema).default([]).describe('Operations consumers call.'),
  sync: z
    .strictObject({
      function: functionRef('System Function run on the schedule for each bound connection.'),
      schedule: z.string().min(1).describe('Five-field cron expression.'),
      timezone: z.string().default('UTC').describe('IANA time zone. Default UTC.'),
    })
    .optional()
    .describe(`Periodic sync (SDK ${featureSince.sync}).`),
  webhook: z
    .strictObject({ function: functionRef('System Function receiving forwarded webhooks.') })
    .optional()
    .describe(`Per-connection webhook (SDK ${featureSince.webhooks}).`),
  events: z
    .array(eventSchema)
    .optional()
    .describe(`Event types emitted (SDK ${featureSince.events}).`),
});

/** `integrations.<slot>`: an integration this app consumes (spec 2.11, schema 3). */
export const slotSchema = z.strictObject({
  provider: z.literal('custom').describe('`custom` for organisation-built integrations.'),
  integration: z
    .string()
    .regex(namingRules.integrationName.pattern)
    .describe('The published integration name.'),
  account: z
    .enum(['app', 'calling_user'])
    .describe('`app`: one binding for the app; `calling_user`: the signed-in person.'),
  cardinality: z.literal('one').default('one').describe('Connections per slot. Only `one`.'),
  capabilities: z.array(z.string().min(1)).min(1).describe('Capabilities requested.'),
  events: z
    .strictObject({
      function: functionRef('System Function receiving the event deliveries.'),
      types: z
        .array(z.string().regex(namingRules.eventType.pattern))
        .optional()
        .describe('Event types to receive; all granted types when omitted.'),
    })
    .optional()
    .describe(`Event subscription; only for \`account: app\` (SDK ${featureSince.events}).`),
});
