import { fillPath } from '@platform/schema/routes';
import * as z from 'zod';
import {
  customIntegrationsPath,
  integrationApiPaths,
  jobsApiPaths,
  onboardingApiPath as onboardingPath,
  ownerApiPaths,
} from '../http/paths.ts';
import { DEV_SESSION_ID } from '../integrations/dev-integration-modes.ts';

/** Which agents see a tool (spec 4.4): the focused builder surface omits production diagnostics. */
export type ToolSurface = 'focused' | 'full';

/** The owner API request a tool makes for one app: its REST twin. */
export interface TwinRequest {
  readonly appId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query on the app's port. */
  readonly path: string;
  readonly json?: unknown;
}

/** One agent tool: its schemas, hints and the REST request it stands for. */
export interface AgentTool<Input extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly surfaces: readonly ToolSurface[];
  readonly input: Input;
  readonly output: z.ZodObject;
  readonly annotations: {
    readonly readOnlyHint: boolean;
    readonly idempotentHint: boolean;
    readonly destructiveHint: boolean;
  };
  /** The REST twin of a call; `undefined` when the tool's feature is not available here. */
  readonly twin?: (input: z.infer<Input>) => TwinRequest;
}

const appId = z.string().min(1).describe('The app id (platform.yaml folder, or GET /v1/apps).');
const record = z.looseObject({});
const both: readonly ToolSurface[] = ['focused', 'full'];
const sessionId = z
  .string()
  .describe(`The development session: "${DEV_SESSION_ID}", the one platform dev runs per app.`);
const readOnly = { readOnlyHint: true, idempotentHint: true, destructiveHint: false };
// Ends or removes something, or runs the app's code again (which may change its data), as
// `invoke_dev_function` does.
const destructive = { readOnlyHint: false, idempotentHint: false, destructiveHint: true };
const full: readonly ToolSurface[] = ['full'];

// Keeps each tool's input type tied to its twin.
const tool = <Input extends z.ZodObject>(definition: AgentTool<Input>) =>
  definition as unknown as AgentTool;

/**
 * The agent tools of spec 4.4, each the same service as its REST twin on the owner API
 * (docs/agents.md): the tool sends that request in-process and answers its JSON as structured
 * content, or its error as a tool error with the same code.
 */
export const agentTools: readonly AgentTool[] = [
  tool({
    name: 'start_onboarding',
    title: 'Start onboarding',
    description:
      'Starts onboarding the person a project is for (spec 5.2): a new address gets a provisional identity and a confirmation email, an existing account an approval email; nothing else until they confirm. Call it again with requestId and claimSecret to see the state and, once ready, finish: the answer then carries this agent’s credential, once.',
    surfaces: both,
    input: z.strictObject({
      appId: appId.describe('The project: the app id the agent builds.'),
      email: z.string().min(3).describe('The address of the person the project is for.'),
      requestId: z.string().optional().describe('To return to a started request.'),
      claimSecret: z.string().optional().describe('The secret the first call answered.'),
    }),
    output: z.looseObject({ requestId: z.string(), state: z.string() }),
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
    twin: ({ appId, email, requestId, claimSecret }) =>
      requestId === undefined
        ? { appId, method: 'POST', path: fillPath(onboardingPath, { appId }), json: { email } }
        : {
            appId,
            method: 'POST',
            path: `${fillPath(onboardingPath, { appId })}/${encodeURIComponent(requestId)}`,
            json: { claimSecret },
          },
  }),
  tool({
    name: 'list_background_jobs',
    title: 'List background jobs',
    description:
      'The app’s background jobs, newest first, as GET /v1/apps/{appId}/jobs answers them.',
    surfaces: ['full'],
    input: z.strictObject({
      appId,
      state: z
        .string()
        .optional()
        .describe('queued, running, retry_wait, succeeded or dead_lettered'),
      queue: z.string().optional(),
      limit: z.number().int().optional(),
      cursor: z.string().optional(),
    }),
    output: z.looseObject({ jobs: z.array(record) }),
    annotations: readOnly,
    twin: ({ appId: id, ...query }) => ({
      appId: id,
      method: 'GET',
      path: withQuery(fillPath(jobsApiPaths.list, { appId: id }), query),
    }),
  }),
  tool({
    name: 'get_background_job',
    title: 'Get a background job',
    description: 'One background job, as GET /v1/apps/{appId}/jobs/{jobId} answers it.',
    surfaces: ['full'],
    input: z.strictObject({ appId, jobId: z.string().min(1) }),
    output: z.looseObject({ job: record }),
    annotations: readOnly,
    twin: ({ appId: id, jobId }) => ({
      appId: id,
      method: 'GET',
      path: fillPath(jobsApiPaths.get, { appId: id, jobId }),
    }),
  }),
  tool({
    name: 'list_backups',
    title: 'List backups',
    description:
      'The app’s backups, newest first (id, kind, when, size, file generations), as GET /v1/apps/{appId}/backups answers them.',
    surfaces: ['full'],
    input: z.strictObject({ appId }),
    output: z.looseObject({ backups: z.array(record) }),
    annotations: readOnly,
    twin: ({ appId: id }) => ({
      appId: id,
      method: 'GET',
      path: fillPath(ownerApiPaths.backups, { appId: id }),
    }),
  }),
  tool({
    name: 'create_backup',
    title: 'Take a backup',
    description:
      'Takes a manual backup of the app’s database and files now, e.g. before a risky change. Restoring one replaces the app’s data and is the person’s action (platform backups restore or the console), not a tool.',
    surfaces: ['full'],
    input: z.strictObject({ appId }),
    output: z.looseObject({ backup: record }),
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
    twin: ({ appId: id }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(ownerApiPaths.backups, { appId: id }),
      json: {},
    }),
  }),
  tool({
    name: 'list_integration_event_deliveries',
    title: 'List integration event deliveries',
    description:
      'The integration events delivered (or waiting) to the app’s slots, with attempts and last error.',
    surfaces: both,
    input: z.strictObject({ appId }),
    output: z.looseObject({ deliveries: z.array(record) }),
    annotations: readOnly,
    twin: ({ appId: id }) => ({
      appId: id,
      method: 'GET',
      path: fillPath(integrationApiPaths.events, { appId: id }),
    }),
  }),
  tool({
    name: 'list_custom_integrations',
    title: 'List custom integrations',
    description: 'The integrations the organisation’s apps publish, as the app sees them.',
    surfaces: both,
    input: z.strictObject({ appId }),
    output: z.looseObject({ integrations: z.array(record) }),
    annotations: readOnly,
    twin: ({ appId: id }) => ({
      appId: id,
      method: 'GET',
      path: fillPath(customIntegrationsPath, { appId: id }),
    }),
  }),
  tool({
    name: 'set_dev_integration_mode',
    title: 'Switch a slot live or back to fake',
    description:
      'In the development session, makes one account: app slot call its provider (live) or answer the contract’s fakes.',
    surfaces: both,
    input: z.strictObject({
      appId,
      sessionId,
      integrationName: z.string().min(1).describe('The slot name (platform.yaml integrations).'),
      mode: z.enum(['live', 'fake']),
    }),
    output: z.looseObject({ liveSlot: z.string().nullable() }),
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
    twin: ({ appId: id, sessionId, integrationName, mode }) => ({
      appId: id,
      method: 'PUT',
      path: fillPath(integrationApiPaths.devModes, { appId: id }),
      json: { slot: integrationName, mode, sessionId },
    }),
  }),
  tool({
    name: 'inject_dev_integration_event',
    title: 'Inject an integration event',
    description:
      'Delivers a synthetic event with a new id to a slot’s events Function in the development session; data defaults to the event’s declared fake.',
    surfaces: both,
    input: z.strictObject({
      appId,
      sessionId,
      integrationName: z
        .string()
        .min(1)
        .describe('The subscribed slot’s name (platform.yaml integrations).'),
      type: z.string().min(1).describe('An event type the provider’s contract declares.'),
      data: record.optional().describe('The event data; the declared fake by default.'),
    }),
    output: z.looseObject({ delivery: record }),
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
    twin: ({ appId: id, ...body }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(integrationApiPaths.devEvents, { appId: id }),
      json: body,
    }),
  }),
  tool({
    name: 'set_dev_integration_test_connection',
    title: 'Choose the test connection',
    description:
      'The connection a provider app’s operation, sync and webhook Functions run for when invoked directly; null clears it.',
    surfaces: both,
    input: z.strictObject({
      appId,
      connectionId: z.string().min(1).nullable(),
      actingAs: z
        .string()
        .optional()
        .describe(
          'The member choosing (email), who needs Edit access to the provider app; an agent credential chooses as its own account.',
        ),
    }),
    output: z.looseObject({ testConnection: z.string().nullable() }),
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
    twin: ({ appId: id, connectionId, actingAs }) => ({
      appId: id,
      method: 'PUT',
      path: fillPath(integrationApiPaths.devModes, { appId: id }),
      json: { testConnection: connectionId, ...(actingAs === undefined ? {} : { actingAs }) },
    }),
  }),
  tool({
    name: 'invoke_dev_function',
    title: 'Invoke a Function',
    description:
      'Runs one of the app’s Functions directly in the development session, as the system or as a user id.',
    surfaces: both,
    input: z.strictObject({
      appId,
      name: z.string().min(1).describe('The Function’s name in platform.yaml.'),
      input: z.unknown().optional(),
      user: z.string().optional().describe('A user id (UUID) to run as; the system otherwise.'),
    }),
    output: z.looseObject({ result: z.unknown() }),
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: true },
    twin: ({ appId: id, name, ...body }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(ownerApiPaths.invoke, { appId: id, name }),
      json: body,
    }),
  }),
  tool({
    name: 'retry_background_job',
    title: 'Retry a background job',
    description: 'Runs a dead-lettered job again from its first attempt.',
    surfaces: full,
    input: z.strictObject({ appId, jobId: z.string().min(1) }),
    output: z.looseObject({ job: record }),
    annotations: destructive,
    twin: ({ appId: id, jobId }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(jobsApiPaths.retry, { appId: id, jobId }),
    }),
  }),
  tool({
    name: 'cancel_background_job',
    title: 'Cancel a background job',
    description: 'Dead-letters a queued or retry_wait job with JOB_CANCELLED: it never runs.',
    surfaces: full,
    input: z.strictObject({ appId, jobId: z.string().min(1) }),
    output: z.looseObject({ job: record }),
    annotations: destructive,
    twin: ({ appId: id, jobId }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(jobsApiPaths.cancel, { appId: id, jobId }),
    }),
  }),
  tool({
    name: 'run_cron_schedule',
    title: 'Run a cron schedule now',
    description: 'Runs a declared cron schedule once now.',
    surfaces: full,
    input: z.strictObject({
      appId,
      name: z.string().min(1).describe('A platform.yaml cron name.'),
    }),
    output: z.looseObject({ run: record }),
    annotations: destructive,
    twin: ({ appId: id, name }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(jobsApiPaths.cronRun, { appId: id, name }),
      json: {},
    }),
  }),
  tool({
    name: 'replay_integration_event_delivery',
    title: 'Replay an event delivery',
    description: 'Delivers a failed integration event delivery again, with the payload it kept.',
    surfaces: full,
    input: z.strictObject({
      appId,
      deliveryId: z.string().min(1),
    }),
    output: z.looseObject({ delivery: record }),
    annotations: destructive,
    twin: ({ appId: id, deliveryId }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(integrationApiPaths.eventReplay, { appId: id, deliveryId }),
    }),
  }),
  tool({
    name: 'deliver_captured_email',
    title: 'Deliver a captured email to the inbound Function',
    description:
      'Delivers an email the app sent (captured by platform dev) to its inbound email Function, as if it arrived.',
    surfaces: full,
    input: z.strictObject({
      appId,
      emailId: z.string().min(1).describe('From platform outbox --json.'),
      to: z.array(z.string()).optional().describe('App addresses; its recipients by default.'),
    }),
    output: z.looseObject({ id: z.string(), result: z.unknown() }),
    annotations: destructive,
    twin: ({ appId: id, emailId, to }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(ownerApiPaths.outboxReceive, { appId: id, emailId }),
      json: to === undefined ? {} : { to },
    }),
  }),
  tool({
    name: 'list_app_access_tokens',
    title: 'List app access tokens',
    description:
      'The app’s access tokens (id, name, state, first characters, last use), never a value.',
    surfaces: full,
    input: z.strictObject({ appId }),
    output: z.looseObject({ tokens: z.array(record) }),
    annotations: readOnly,
    twin: ({ appId: id }) => ({
      appId: id,
      method: 'GET',
      path: fillPath(ownerApiPaths.tokens, { appId: id }),
    }),
  }),
  tool({
    name: 'create_app_access_token',
    title: 'Create an app access token',
    description:
      'Makes an app access token; answers its one-time reveal link for the owner’s browser, never the value.',
    surfaces: full,
    input: z.strictObject({ appId, name: z.string().min(1).max(100).optional() }),
    output: z.looseObject({ id: z.string(), revealUrl: z.string() }),
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
    twin: ({ appId: id, name }) => ({
      appId: id,
      method: 'POST',
      path: fillPath(ownerApiPaths.tokens, { appId: id }),
      json: name === undefined ? {} : { name },
    }),
  }),
  tool({
    name: 'revoke_app_access_token',
    title: 'Revoke an app access token',
    description: 'Ends an app access token at once.',
    surfaces: full,
    input: z.strictObject({ appId, tokenId: z.string().min(1) }),
    output: z.looseObject({ id: z.string(), revoked: z.boolean() }),
    annotations: destructive,
    twin: ({ appId: id, tokenId }) => ({
      appId: id,
      method: 'DELETE',
      path: `${fillPath(ownerApiPaths.tokens, { appId: id })}/${encodeURIComponent(tokenId)}`,
    }),
  }),
];

function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}
