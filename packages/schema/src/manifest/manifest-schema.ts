import { z } from 'zod';
import { functionAccessLevels } from '../contract/access.ts';
import { limits } from '../limits.ts';
import { featureSince } from '../sdk-versions.ts';
import { integrationContractSchema, slotSchema } from './integration-schema.ts';
import { namingRules } from './patterns.ts';

/** HTTP methods a Function route may declare. GET routes also answer HEAD. */
export const routeMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** PostgreSQL text search configurations a full-text search may use. */
export const searchLanguages = [
  'simple',
  'arabic',
  'armenian',
  'basque',
  'catalan',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hindi',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'serbian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
  'yiddish',
] as const;

/** Largest vector a search may declare (pgvector's `vector` type limit). */
export const maxVectorDimensions = 16_000;

const functionRef = (description: string) =>
  z.string().regex(namingRules.functionName.pattern).describe(description);
const column = (description: string) =>
  z.string().regex(namingRules.sqlIdentifier.pattern).describe(description);
const positiveInt = (setting: { default: number; max: number }, description: string) =>
  z
    .int()
    .min(1)
    .max(setting.max)
    .default(setting.default)
    .describe(`${description} Default ${setting.default}, at most ${setting.max}.`);

/** A schema-3 Function route: the app URL path that invokes the Function (SDK 2.3.0). */
export const routeSchema = z.strictObject({
  path: z
    .string()
    .regex(namingRules.routePath.pattern)
    .describe('Path pattern such as /api/todos/:id; `:name` segments become http.params.name.'),
  methods: z
    .array(z.enum(routeMethods))
    .min(1)
    .default(['GET'])
    .describe('HTTP methods. Default [GET]; GET also answers HEAD.'),
});

/** One `functions[]` entry (spec 2.3). */
export const functionSchema = z.strictObject({
  name: functionRef('Function name, unique in the app.'),
  entrypoint: z
    .string()
    .min(1)
    .describe('Path of the .ts entry file, relative to the app; helpers stay in its directory.'),
  access: z
    .enum(functionAccessLevels)
    .describe('`user`: signed-in caller; `public`: optional identity; `system`: platform only.'),
  route: routeSchema.optional().describe('Schema 3: invoke the Function from an app URL path.'),
});

const q = limits.queues;

/** One `queues[]` entry (spec 2.7). */
export const queueSchema = z.strictObject({
  name: z.string().regex(namingRules.queueName.pattern).describe('Queue name, unique in the app.'),
  function: functionRef('The system Function that consumes the jobs.'),
  concurrency: positiveInt(q.concurrency, 'Jobs of this queue running at once.'),
  maxAttempts: positiveInt(q.maxAttempts, 'Total delivery attempts; the first is attempt 1.'),
  retryDelaySeconds: positiveInt(q.retryDelaySeconds, 'Seconds between attempts.'),
  retryBackoff: z
    .boolean()
    .default(q.retryBackoff.default)
    .describe(`Double the delay between later attempts. Default ${q.retryBackoff.default}.`),
  timeoutSeconds: positiveInt(q.timeoutSeconds, 'Limit of each consumer attempt in seconds.'),
});

/** One `cron[]` entry (spec 2.8). */
export const cronSchema = z.strictObject({
  name: z
    .string()
    .regex(namingRules.cronName.pattern)
    .describe('Schedule name, unique in the app.'),
  schedule: z.string().min(1).describe('Five-field cron expression, e.g. "0 9 * * MON-FRI".'),
  function: functionRef('The system Function to run.'),
  enabled: z.boolean().default(true).describe('Whether the schedule is active. Default true.'),
  timezone: z.string().default('UTC').describe('IANA time zone. Default UTC.'),
});

/** One `data.search[]` declaration (spec 2.5; its fields are ours). */
export const searchSchema = z.strictObject({
  name: z
    .string()
    .regex(namingRules.searchName.pattern)
    .describe('Name passed to data.search(name, options).'),
  table: column('Table searched (its primary key is id).'),
  select: z
    .array(column('Column returned in each hit record.'))
    .min(1)
    .describe(
      `Columns of each hit record; a record is at most ${limits.search.recordMaxBytes} bytes.`,
    ),
  fullText: z
    .strictObject({
      columns: z.array(column('Text column.')).min(1).describe('Columns searched by full text.'),
      language: z
        .enum(searchLanguages)
        .default('simple')
        .describe('PostgreSQL text search configuration. Default simple.'),
    })
    .optional()
    .describe('Enables fullText and (with vector) hybrid modes.'),
  vector: z
    .strictObject({
      column: column('pgvector column holding the embeddings.'),
      dimensions: z.int().min(1).max(maxVectorDimensions).describe('Length of every vector.'),
      model: z
        .string()
        .min(1)
        .max(200)
        .describe('Embedding model identity; queries must name it exactly.'),
    })
    .optional()
    .describe('Enables vector and (with fullText) hybrid modes.'),
  filters: z
    .array(column('Scalar column usable in where.'))
    .default([])
    .describe('Columns allowed in `where` as scalar equality filters.'),
});

/** Who may join a realtime channel (docs/realtime.md). */
export const realtimeJoinLevels = ['public', 'signed-in'] as const;
/** Who may send on a realtime channel; `functions`: only Functions (`ctx.realtime.broadcast`). */
export const realtimeSendLevels = ['public', 'signed-in', 'functions'] as const;

/** One `realtime.channels` rule: who may join (and be present) and who may broadcast. */
export const realtimeChannelSchema = z.strictObject({
  join: z
    .enum(realtimeJoinLevels)
    .default('signed-in')
    .describe(
      '`public`: any visitor the app admits; `signed-in`: users only. Members may share presence. Default signed-in.',
    ),
  send: z
    .enum(realtimeSendLevels)
    .default('signed-in')
    .describe(
      '`public`, `signed-in`, or `functions` (browsers only listen). Functions may always send. Default signed-in.',
    ),
});

/** `realtime` of platform.yaml: declared channels and the tables whose changes are streamed. */
export const realtimeSchema = z.strictObject({
  channels: z
    .record(z.string().regex(namingRules.realtimeChannel.pattern), realtimeChannelSchema)
    .default({})
    .describe(
      'Channel rules by name or prefix (`room:*`); the longest matching key applies. Undeclared channels are refused.',
    ),
  tables: z
    .array(z.string().regex(namingRules.realtimeTable.pattern))
    .default([])
    .describe(
      'Tables of the public schema (each with an id column) whose inserts, updates and deletes browsers may subscribe to, filtered by RLS per subscriber.',
    ),
});

/** The whole `platform.yaml` schema (structure only; {@link validateManifest} adds the rules). */
export const manifestSchema = z
  .strictObject({
    $schema: z.string().optional().describe('JSON Schema URL for editors; ignored.'),
    schemaVersion: z.int().min(1).max(3).describe('Manifest schema version: 1, 2 or 3.'),
    runtime: z.strictObject({
      sdk: z.strictObject({
        version: z
          .string()
          .regex(namingRules.sdkVersion.pattern)
          .describe('Pinned runtime SDK version, e.g. 2.6.0.'),
      }),
    }),
    visibility: z
      .enum(['public', 'private'])
      .default('private')
      .describe(
        '`public`: anonymous visitors too; `private`: granted accounts only. Default private.',
      ),
    functions: z.array(functionSchema).default([]).describe('Server Functions.'),
    queues: z.array(queueSchema).default([]).describe('Background job queues.'),
    cron: z.array(cronSchema).default([]).describe('Cron schedules.'),
    secrets: z
      .array(z.string().regex(namingRules.secretName.pattern))
      .default([])
      .describe('Names of secrets; values are provisioned separately.'),
    email: z
      .strictObject({
        aliases: z
          .array(
            z.strictObject({
              name: z.string().regex(namingRules.emailAlias.pattern).describe('Mailbox name.'),
              displayName: z.string().min(1).optional().describe('Sender display name.'),
            }),
          )
          .default([])
          .describe('Sender aliases Functions may send from.'),
        inbound: z
          .strictObject({ function: functionRef('System Function receiving inbound email.') })
          .optional(),
      })
      .default({ aliases: [] })
      .describe('Application email.'),
    data: z
      .strictObject({
        search: z.array(searchSchema).default([]).describe('Named searches.'),
      })
      .default({ search: [] })
      .describe('Data declarations.'),
    realtime: realtimeSchema
      .default({ channels: {}, tables: [] })
      .describe('Realtime channels and database changes (docs/realtime.md).'),
    provides: z
      .strictObject({ integration: integrationContractSchema.optional() })
      .optional()
      .describe('What this app publishes to its organisation (schema 3).'),
    integrations: z
      .record(z.string().regex(namingRules.slotName.pattern), slotSchema)
      .default({})
      .describe(`Integration slots by slot name (schema 3, SDK ${featureSince.integrations}).`),
  })
  .describe('platform.yaml: the manifest of an app on the platform.');

/** A parsed `platform.yaml` with every default applied. */
export type Manifest = z.output<typeof manifestSchema>;
/** A `platform.yaml` as written (defaults not yet applied). */
export type ManifestInput = z.input<typeof manifestSchema>;
/** One `functions[]` entry. */
export type FunctionDeclaration = Manifest['functions'][number];
/** A Function route. */
export type RouteDeclaration = NonNullable<FunctionDeclaration['route']>;
/** One `queues[]` entry. */
export type QueueDeclaration = Manifest['queues'][number];
/** One `cron[]` entry. */
export type CronDeclaration = Manifest['cron'][number];
/** One `data.search[]` entry. */
export type SearchDeclaration = Manifest['data']['search'][number];
/** `realtime` of platform.yaml, defaults applied. */
export type RealtimeDeclaration = Manifest['realtime'];
/** `provides.integration`. */
export type IntegrationContract = z.output<typeof integrationContractSchema>;
/** One `integrations.<slot>` entry. */
export type SlotDeclaration = z.output<typeof slotSchema>;
