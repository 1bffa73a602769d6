// The agent tools over MCP (spec 4.4), with the official client: served by `platform dev` on
// `{base_url}/v1/mcp` (streamable HTTP, dev token, loopback Host and Origin only) and by
// `platform mcp` over stdio. Each tool answers what its REST twin on the owner API answers:
// the same JSON as structured content, or the same error code.

import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceServer } from '../../src/app/start-workspace.ts';
import { decideRequest, FakeBrowser } from '../auth/helpers.ts';
import { inviteToOrganisation } from '../helpers/organisation.ts';
import { platformMcpStdio, root, salesCrmWorkspace } from './sales-crm-workspace.ts';

let served: Awaited<ReturnType<typeof salesCrmWorkspace>>;
let ws: WorkspaceServer;
const clients: Client[] = [];

// The sales app of the copy also has a queue, a cron schedule and an inbound email Function,
// for the tools of the console's actions.
const followUp = `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ fail: s.optional(s.boolean()) }),
  handler: async ({ input }) => {
    if (input.fail) throw new Error('asked to fail');
    return { done: true };
  },
});
`;
const nightly = `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ source: s.literal('platform.cron'), name: s.string(), scheduledAt: s.string() }),
  handler: async ({ input }) => ({ ran: input.name }),
});
`;
const onMail = `import { defineFunction, inboundEmailSchema } from '@platform/server';
export default defineFunction({
  input: inboundEmailSchema,
  handler: async ({ input }) => ({ subject: input.subject }),
});
`;
const mailOut = `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async ({ email }) => email.send({ from: 'sales', to: 'lead@example.com', subject: 'Hello lead', text: 'Hi.' }),
});
`;
const salesAdditions = `
queues:
  - name: followups
    function: followUp
    maxAttempts: 1
cron:
  - name: nightly
    schedule: "0 3 * * *"
    function: nightlyDigest
    timezone: UTC
email:
  aliases:
    - name: sales
  inbound:
    function: onMail
`;
const salesFunctions = [
  ['followUp', 'follow-up', followUp, 'system'],
  ['nightlyDigest', 'nightly-digest', nightly, 'system'],
  ['onMail', 'on-mail', onMail, 'system'],
  ['mailOut', 'mail-out', mailOut, 'public'],
] as const;

async function addSalesActions(dir: string): Promise<void> {
  const sales = join(dir, 'sales');
  const yaml = await readFile(join(sales, 'platform.yaml'), 'utf8');
  const declared = salesFunctions
    .map(
      ([name, folder, , access]) =>
        `  - name: ${name}\n    entrypoint: functions/${folder}/index.ts\n    access: ${access}\n`,
    )
    .join('');
  await writeFile(
    join(sales, 'platform.yaml'),
    `${yaml.replace('functions:\n', `functions:\n${declared}`)}${salesAdditions}`,
  );
  for (const [, folder, source] of salesFunctions) {
    await mkdir(join(sales, 'functions', folder), { recursive: true });
    await writeFile(join(sales, 'functions', folder, 'index.ts'), source);
  }
}

beforeAll(async () => {
  served = await salesCrmWorkspace('mcp-', addSalesActions);
  ws = served.ws;
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await served?.close();
});

async function connect(surface: 'focused' | 'full'): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const url = new URL(`${ws.url}/v1/mcp${surface === 'full' ? '?surface=full' : ''}`);
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${ws.devToken}` } },
    }),
  );
  clients.push(client);
  return client;
}

const rest = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${ws.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The tools of the console's actions and the app's access tokens (full surface only). */
const consoleActionTools = [
  'retry_background_job',
  'cancel_background_job',
  'run_cron_schedule',
  'replay_integration_event_delivery',
  'deliver_captured_email',
  'list_app_access_tokens',
  'create_app_access_token',
  'revoke_app_access_token',
] as const;

type ToolAnswer = { structuredContent?: unknown; isError?: boolean; content: { text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;
const codeOf = (answer: ToolAnswer) => answer.content[0]?.text?.split(':')[0];

describe('the agent tools', () => {
  it('list the spec’s tools with schemas and hints; the focused surface omits the job diagnostics', async () => {
    const focused = (await (await connect('focused')).listTools()).tools;
    const full = (await (await connect('full')).listTools()).tools;
    expect(full.map((t) => t.name).sort()).toEqual([
      'cancel_background_job',
      'create_app_access_token',
      'create_backup',
      'deliver_captured_email',
      'get_background_job',
      'inject_dev_integration_event',
      'invoke_dev_function',
      'list_app_access_tokens',
      'list_background_jobs',
      'list_backups',
      'list_custom_integrations',
      'list_integration_event_deliveries',
      'replay_integration_event_delivery',
      'retry_background_job',
      'revoke_app_access_token',
      'run_cron_schedule',
      'set_dev_integration_mode',
      'set_dev_integration_test_connection',
      'start_onboarding',
    ]);
    // The console's actions and the app's tokens are the full surface's: none is a builder's.
    for (const name of consoleActionTools) {
      expect(focused.map((t) => t.name)).not.toContain(name);
    }
    expect(focused.map((t) => t.name)).not.toContain('list_background_jobs');
    expect(focused.map((t) => t.name)).not.toContain('get_background_job');
    // Backups are the owner's business, not a builder's: the full surface only, and no restore.
    expect(focused.map((t) => t.name)).not.toContain('list_backups');
    expect(focused.map((t) => t.name)).not.toContain('create_backup');
    expect(focused).toHaveLength(7);
    for (const tool of full) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
    }
    const hints = Object.fromEntries(full.map((t) => [t.name, t.annotations]));
    expect(hints.list_background_jobs).toMatchObject({ readOnlyHint: true });
    expect(hints.list_backups).toMatchObject({ readOnlyHint: true });
    expect(hints.create_backup).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(hints.invoke_dev_function).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints.set_dev_integration_mode).toMatchObject({ idempotentHint: true });
    for (const name of [
      'retry_background_job',
      'cancel_background_job',
      'run_cron_schedule',
      'replay_integration_event_delivery',
      'deliver_captured_email',
      'revoke_app_access_token',
    ]) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(hints.list_app_access_tokens).toMatchObject({ readOnlyHint: true });
    expect(hints.create_app_access_token).toMatchObject({ destructiveHint: false });
    // The parameters of spec 4.4, no more and no fewer.
    const inject = full.find((t) => t.name === 'inject_dev_integration_event')!.inputSchema;
    expect(Object.keys(inject.properties ?? {}).sort()).toEqual(
      ['appId', 'data', 'integrationName', 'sessionId', 'type'].sort(),
    );
    expect([...(inject.required ?? [])].sort()).toEqual(
      ['appId', 'integrationName', 'sessionId', 'type'].sort(),
    );
  });

  it('answer what their REST twins answer', async () => {
    const agent = await connect('full');
    const same = async (
      name: string,
      args: Record<string, unknown>,
      path: string,
      init?: RequestInit,
    ) => {
      const tool = await call(agent, name, args);
      const twin = await rest(path, init);
      expect(tool.isError ?? false).toBe(false);
      expect(twin.status).toBe(200);
      expect(tool.structuredContent).toEqual(twin.body);
      return twin.body;
    };
    await same(
      'list_custom_integrations',
      { appId: 'sales' },
      '/v1/apps/sales/custom-integrations',
    );
    await same('list_background_jobs', { appId: 'sales' }, '/v1/apps/sales/jobs');
    // Changes answer the state after them: the tool first, then the twin with the same request.
    const live = { slot: 'crm', mode: 'live', sessionId: 'default' };
    const put = { method: 'PUT', body: JSON.stringify(live) };
    expect(
      await same(
        'set_dev_integration_mode',
        { appId: 'sales', sessionId: 'default', integrationName: 'crm', mode: 'live' },
        '/v1/apps/sales/dev/integrations',
        put,
      ),
    ).toMatchObject({ sessionId: 'default', liveSlot: 'crm' });
    await same(
      'set_dev_integration_test_connection',
      { appId: 'crm', connectionId: null },
      '/v1/apps/crm/dev/integrations',
      { method: 'PUT', body: JSON.stringify({ testConnection: null }) },
    );
    const injected = await call(agent, 'inject_dev_integration_event', {
      appId: 'sales',
      sessionId: 'default',
      integrationName: 'crm',
      type: 'contact.updated',
    });
    expect(injected.isError ?? false).toBe(false);
    const { delivery } = injected.structuredContent as { delivery: { eventId: string } };
    expect(delivery).toMatchObject({ slot: 'crm', type: 'contact.updated', state: 'delivered' });
    const deliveries = await same(
      'list_integration_event_deliveries',
      { appId: 'sales' },
      '/v1/apps/sales/integration-events',
    );
    expect(JSON.stringify(deliveries)).toContain(delivery.eventId);
  });

  it('answer the same error codes as their REST twins', async () => {
    const agent = await connect('full');
    const both = async (name: string, args: Record<string, unknown>, code: string) => {
      const tool = await call(agent, name, args);
      expect(tool.isError).toBe(true);
      expect(codeOf(tool)).toBe(code);
    };
    await both('get_background_job', { appId: 'sales', jobId: 'job_missing' }, 'JOB_NOT_FOUND');
    expect((await rest('/v1/apps/sales/jobs/job_missing')).body).toMatchObject({
      error: { code: 'JOB_NOT_FOUND' },
    });
    await both(
      'set_dev_integration_mode',
      { appId: 'sales', sessionId: 'other', integrationName: 'crm', mode: 'live' },
      'INVALID_REQUEST',
    );
    expect(
      (
        await rest('/v1/apps/sales/dev/integrations', {
          method: 'PUT',
          body: JSON.stringify({ slot: 'crm', mode: 'live', sessionId: 'other' }),
        })
      ).body,
    ).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
    await both(
      'inject_dev_integration_event',
      { appId: 'sales', sessionId: 'other', integrationName: 'crm', type: 'contact.updated' },
      'INVALID_REQUEST',
    );
    await both(
      'inject_dev_integration_event',
      { appId: 'sales', sessionId: 'default', integrationName: 'billing', type: 'x.y' },
      'INTEGRATION_SLOT_NOT_DECLARED',
    );
    // The provider's operation Function needs a test connection, through either door.
    await both(
      'invoke_dev_function',
      { appId: 'crm', name: 'findContact', input: { email: 'a@b.c' } },
      'INTEGRATION_TEST_CONNECTION_REQUIRED',
    );
    await both('list_integration_event_deliveries', { appId: 'nowhere' }, 'APP_NOT_FOUND');
    await both('start_onboarding', { appId: 'sales', email: 'not-an-address' }, 'INVALID_INPUT');
    const onboarding = await rest('/v1/apps/sales/onboarding', {
      method: 'POST',
      body: '{"email":"not-an-address"}',
    });
    expect(onboarding.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    await both(
      'start_onboarding',
      { appId: 'sales', email: 'a@example.com', requestId: 'onb_x', claimSecret: 'x' },
      'ONBOARDING_REQUEST_NOT_FOUND',
    );
  });

  it('invoke a Function as its REST twin does', async () => {
    const agent = await connect('focused');
    // Back to the contract's fake (an earlier test switched the slot live, and it is not bound).
    await call(agent, 'set_dev_integration_mode', {
      appId: 'sales',
      sessionId: 'default',
      integrationName: 'crm',
      mode: 'fake',
    });
    const answer = await call(agent, 'invoke_dev_function', {
      appId: 'sales',
      name: 'lookupCustomer',
      input: { email: 'grace@example.com' },
    });
    expect(answer.isError ?? false).toBe(false);
    const twin = await fetch(
      `http://127.0.0.1:${ws.app('sales')!.port}/v1/apps/sales/invoke/lookupCustomer`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { email: 'grace@example.com' } }),
      },
    );
    const body = await twin.json();
    expect(body).toMatchObject({ result: { contact: { name: 'Ada (fake)' } } });
    expect(answer.structuredContent).toEqual(body);
  });

  it('refuse a request without the dev token, or from another Host or Origin', async () => {
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${ws.url}/v1/mcp`);
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
      });
    const token = { authorization: `Bearer ${ws.devToken}` };
    expect(await post({})).toBe(403);
    expect(await post({ authorization: 'Bearer wrong' })).toBe(403);
    expect(await post({ ...token, host: 'attacker.example' })).toBe(403);
    expect(await post({ ...token, origin: 'http://attacker.example' })).toBe(403);
  });

  it('are served on each app’s own port too, for that app', async () => {
    const client = new Client({ name: 'app-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${ws.app('sales')!.port}/v1/mcp`),
        { requestInit: { headers: { authorization: `Bearer ${ws.devToken}` } } },
      ),
    );
    clients.push(client);
    const tool = await call(client, 'list_custom_integrations', { appId: 'sales' });
    expect(tool.structuredContent).toEqual((await rest('/v1/apps/sales/custom-integrations')).body);
    expect(codeOf(await call(client, 'list_custom_integrations', { appId: 'crm' }))).toBe(
      'APP_NOT_FOUND',
    );
  });

  it('are served over stdio by platform mcp in an app folder', async () => {
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(platformMcpStdio(join(served.dir, 'sales')));
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_integration_event_deliveries');
    expect(names).not.toContain('list_background_jobs');
    const tool = await call(client, 'list_integration_event_deliveries', { appId: 'sales' });
    expect(tool.structuredContent).toEqual((await rest('/v1/apps/sales/integration-events')).body);
    const other = await call(client, 'list_integration_event_deliveries', { appId: 'crm' });
    expect(codeOf(other)).toBe('APP_NOT_FOUND');
  });
});

/** The MCP Inspector's CLI mode (`mcp-inspector --cli`), as a person debugging the tools runs it. */
function inspector(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules/.bin/mcp-inspector'), '--cli', ...args],
    { cwd: root, env: { ...process.env, HOME: served.dir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

const toolNames = (out: string) =>
  ((JSON.parse(out) as { tools: { name: string }[] }).tools ?? []).map((t) => t.name).sort();

describe('the tools of the console’s actions', { timeout: 120_000 }, () => {
  const sales = '/v1/apps/sales';
  type Job = { id: string; state: string; attempt: number; lastError: { code: string } | null };
  const enqueue = async (body: Record<string, unknown>) =>
    (
      (await rest(`${sales}/queues/followups/jobs`, { method: 'POST', body: JSON.stringify(body) }))
        .body as { job: Job }
    ).job;
  const jobOf = async (id: string) =>
    ((await rest(`${sales}/jobs/${id}`)).body as { job: Job }).job;
  const errorCode = (body: Record<string, unknown>) => (body.error as { code?: string }).code;

  it('retry and cancel a background job as POST …/jobs/{jobId}/retry and …/cancel do', async () => {
    const agent = await connect('full');
    const failed = await enqueue({ payload: { fail: true }, idempotencyKey: 'fails' });
    await expect
      .poll(async () => (await jobOf(failed.id)).state, { timeout: 20_000 })
      .toBe('dead_lettered');
    const retried = await call(agent, 'retry_background_job', { appId: 'sales', jobId: failed.id });
    expect(retried.isError ?? false).toBe(false);
    expect(retried.structuredContent).toMatchObject({
      job: { id: failed.id, state: 'queued', attempt: 0, lastError: null },
    });
    // It ran again from its first attempt, and failed again: the twin retries it the same way.
    await expect
      .poll(async () => (await jobOf(failed.id)).state, { timeout: 20_000 })
      .toBe('dead_lettered');
    const twin = await rest(`${sales}/jobs/${failed.id}/retry`, { method: 'POST' });
    expect(twin.body).toMatchObject({ job: { id: failed.id, state: 'queued', attempt: 0 } });

    const later = await enqueue({ payload: {}, idempotencyKey: 'later', delaySeconds: 3600 });
    const cancelled = await call(agent, 'cancel_background_job', {
      appId: 'sales',
      jobId: later.id,
    });
    expect(cancelled.structuredContent).toEqual({ job: await jobOf(later.id) });
    expect(cancelled.structuredContent).toMatchObject({
      job: { state: 'dead_lettered', lastError: { code: 'JOB_CANCELLED' } },
    });
    // Refused as the twin refuses: a finished job is not pending, an unknown one is not found.
    const again = await call(agent, 'cancel_background_job', { appId: 'sales', jobId: later.id });
    expect(codeOf(again)).toBe('INVALID_INPUT');
    expect(
      errorCode((await rest(`${sales}/jobs/${later.id}/cancel`, { method: 'POST' })).body),
    ).toBe('INVALID_INPUT');
    expect(
      codeOf(await call(agent, 'retry_background_job', { appId: 'sales', jobId: 'job_none' })),
    ).toBe('JOB_NOT_FOUND');
  });

  it('run a cron schedule now as POST …/cron/{name}/run does', async () => {
    const agent = await connect('full');
    const ran = await call(agent, 'run_cron_schedule', { appId: 'sales', name: 'nightly' });
    expect(ran.isError ?? false).toBe(false);
    const { run } = ran.structuredContent as { run: { name: string; runId: string } };
    expect(run.name).toBe('nightly');
    await expect
      .poll(
        async () =>
          ((await rest(`${sales}/cron/runs/${run.runId}`)).body as { run: { state: string } }).run
            .state,
        { timeout: 20_000 },
      )
      .toBe('succeeded');
    const unknown = await call(agent, 'run_cron_schedule', { appId: 'sales', name: 'weekly' });
    expect(codeOf(unknown)).toBe('CRON_NOT_DECLARED');
    const twin = await rest(`${sales}/cron/weekly/run`, { method: 'POST', body: '{}' });
    expect(errorCode(twin.body)).toBe('CRON_NOT_DECLARED');
  });

  it('replay a failed event delivery as POST …/integration-events/{deliveryId}/replay does', async () => {
    const agent = await connect('full');
    await call(agent, 'set_dev_integration_mode', {
      appId: 'sales',
      sessionId: 'default',
      integrationName: 'crm',
      mode: 'fake',
    });
    const injected = await call(agent, 'inject_dev_integration_event', {
      appId: 'sales',
      sessionId: 'default',
      integrationName: 'crm',
      type: 'contact.updated',
      data: { email: 'crash@example.com' },
    });
    const { delivery } = injected.structuredContent as { delivery: { id: string; state: string } };
    expect(delivery.state).toBe('failed');
    const replayed = await call(agent, 'replay_integration_event_delivery', {
      appId: 'sales',
      deliveryId: delivery.id,
    });
    expect(replayed.isError ?? false).toBe(false);
    // The handler ran again with the kept payload, and crashed again.
    expect(replayed.structuredContent).toMatchObject({
      delivery: { id: delivery.id, state: 'failed', attempts: 2 },
    });
    const twin = await rest(`${sales}/integration-events/${delivery.id}/replay`, {
      method: 'POST',
    });
    expect(twin.body).toMatchObject({ delivery: { id: delivery.id, attempts: 3 } });
    const unknown = await call(agent, 'replay_integration_event_delivery', {
      appId: 'sales',
      deliveryId: 'dlv_none',
    });
    expect(codeOf(unknown)).toBe('INTEGRATION_EVENT_DELIVERY_NOT_FOUND');
  });

  it('deliver a captured email to the inbound Function as POST …/outbox/{emailId}/receive does', async () => {
    const agent = await connect('full');
    const sent = await call(agent, 'invoke_dev_function', {
      appId: 'sales',
      name: 'mailOut',
      input: {},
    });
    expect(sent.isError ?? false, JSON.stringify(sent.content)).toBe(false);
    const { emails } = (await rest(`${sales}/outbox`)).body as {
      emails: { id: string; subject: string; direction: string }[];
    };
    const captured = emails.find((e) => e.direction === 'outbound' && e.subject === 'Hello lead');
    expect(captured).toBeDefined();
    const delivered = await call(agent, 'deliver_captured_email', {
      appId: 'sales',
      emailId: captured!.id,
    });
    expect(delivered.isError ?? false, JSON.stringify(delivered.content)).toBe(false);
    const twin = await rest(`${sales}/outbox/${captured!.id}/receive`, {
      method: 'POST',
      body: '{}',
    });
    for (const answer of [delivered.structuredContent, twin.body]) {
      expect(answer).toMatchObject({ function: 'onMail', result: { subject: 'Hello lead' } });
    }
    const unknown = await call(agent, 'deliver_captured_email', {
      appId: 'sales',
      emailId: 'eml_none',
    });
    expect(codeOf(unknown)).toBe('EMAIL_NOT_FOUND');
    expect(
      errorCode(
        (await rest(`${sales}/outbox/eml_none/receive`, { method: 'POST', body: '{}' })).body,
      ),
    ).toBe('EMAIL_NOT_FOUND');
  });

  it('make, list and revoke app access tokens, never answering a token’s value', async () => {
    const agent = await connect('full');
    const made = await call(agent, 'create_app_access_token', { appId: 'sales', name: 'ci' });
    expect(made.isError ?? false).toBe(false);
    const token = made.structuredContent as { id: string; revealUrl: string; state: string };
    expect(token).toMatchObject({
      state: 'awaiting_reveal',
      revealUrl: expect.stringContaining('/reveal?secret='),
    });
    expect(JSON.stringify(made)).not.toMatch(/plat_app_/);
    const listed = await call(agent, 'list_app_access_tokens', { appId: 'sales' });
    expect(listed.structuredContent).toEqual((await rest(`${sales}/tokens`)).body);
    expect(JSON.stringify(listed.structuredContent)).toContain(token.id);
    const revoked = await call(agent, 'revoke_app_access_token', {
      appId: 'sales',
      tokenId: token.id,
    });
    expect(revoked.structuredContent).toEqual({ id: token.id, revoked: true });
    const again = await call(agent, 'revoke_app_access_token', {
      appId: 'sales',
      tokenId: token.id,
    });
    expect(codeOf(again)).toBe('INVALID_INPUT');
    const twin = await rest(`${sales}/tokens/${token.id}`, { method: 'DELETE' });
    expect(errorCode(twin.body)).toBe('INVALID_INPUT');
  });

  it('are refused to an app access token, as their REST twins are', async () => {
    const { token } = await ws.app('sales')!.broker.auth.appTokens.issue('not-for-tools');
    const tools = await fetch(`${ws.url}/v1/mcp?surface=full`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(tools.status).toBe(403);
    for (const [method, path] of [
      ['POST', 'jobs/job_x/retry'],
      ['POST', 'jobs/job_x/cancel'],
      ['POST', 'cron/nightly/run'],
      ['POST', 'integration-events/dlv_x/replay'],
      ['POST', 'outbox/eml_x/receive'],
      ['GET', 'tokens'],
      ['POST', 'tokens'],
      ['DELETE', 'tokens/tok_x'],
    ] as const) {
      const twin = await fetch(`${ws.url}${sales}/${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(method === 'GET' ? {} : { body: '{}' }),
      });
      expect(twin.status, path).toBe(403);
      expect(errorCode((await twin.json()) as Record<string, unknown>), path).toBe(
        'PERMISSION_DENIED',
      );
    }
  });
});

describe('the MCP Inspector', { timeout: 120_000 }, () => {
  it('lists the tools over streamable HTTP', async () => {
    const listed = await inspector([
      `${ws.url}/v1/mcp?surface=full`,
      '--transport',
      'http',
      '--method',
      'tools/list',
      '--header',
      `Authorization: Bearer ${ws.devToken}`,
    ]);
    expect(listed.code, listed.err).toBe(0);
    expect(toolNames(listed.out)).toContain('list_background_jobs');
    expect(toolNames(listed.out)).toHaveLength(19);
  });

  it('lists the tools of platform mcp over stdio', async () => {
    const listed = await inspector([
      process.execPath,
      '--conditions=@platform/source',
      '--import',
      'tsx',
      join(root, 'packages/broker/src/bin.ts'),
      'mcp',
      '--app',
      join(served.dir, 'sales'),
      '--method',
      'tools/list',
    ]);
    expect(listed.code, listed.err).toBe(0);
    expect(toolNames(listed.out)).toContain('invoke_dev_function');
  });
});

describe('with an agent credential', { timeout: 120_000 }, () => {
  const app = (id: string) =>
    ws.apps.find((a) => a.broker.appId === id) as (typeof ws.apps)[number];
  const asDeveloper = (url: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** An agent credential for `appId`, approved in the browser by `email`. */
  async function agentOf(appId: string, email: string): Promise<string> {
    const { broker } = app(appId);
    const asked = (await (
      await asDeveloper(`${broker.server.url}/v1/apps/${appId}/tokens/requests`, { kind: 'agent' })
    ).json()) as { id: string; approveUrl: string; userCode: string; claimSecret: string };
    const browser = new FakeBrowser(broker);
    await browser.signInByEmail(email);
    await decideRequest(browser, asked);
    const claimed = await asDeveloper(
      `${broker.server.url}/v1/apps/${appId}/tokens/requests/${asked.id}/claim`,
      { secret: asked.claimSecret },
    );
    return ((await claimed.json()) as { token: string }).token;
  }

  const codeOfResponse = async (response: Response) =>
    ((await response.json()) as { error?: { code?: string } }).error?.code;
  const bind = (credential: string, slot: string, connectionId: string) =>
    fetch(`${ws.url}/v1/apps/sales/bindings/${slot}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
      body: JSON.stringify({ connectionId }),
    });

  it('act for their person on their app through the tools, never on another app', async () => {
    const credential = await agentOf('sales', 'owner@localhost');
    const client = new Client({ name: 'agent-with-credential', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ws.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    const tool = await call(client, 'list_custom_integrations', { appId: 'sales' });
    expect(tool.structuredContent).toEqual((await rest('/v1/apps/sales/custom-integrations')).body);
    expect(codeOf(await call(client, 'list_custom_integrations', { appId: 'crm' }))).toBe(
      'AUTH_REQUIRED',
    );
    const forged = await fetch(`${ws.url}/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer plat_agent_${'x'.repeat(43)}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(forged.status).toBe(403);
  });

  it('invoke a Function of their app through the tool, as its REST twin does', async () => {
    const credential = await agentOf('sales', 'owner@localhost');
    const client = new Client({ name: 'agent-invoking', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ws.url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    await call(client, 'set_dev_integration_mode', {
      appId: 'sales',
      sessionId: 'default',
      integrationName: 'crm',
      mode: 'fake',
    });
    const answer = await call(client, 'invoke_dev_function', {
      appId: 'sales',
      name: 'lookupCustomer',
      input: { email: 'grace@example.com' },
    });
    expect(answer.isError ?? false).toBe(false);
    expect(answer.structuredContent).toMatchObject({
      result: { contact: { name: 'Ada (fake)' } },
    });
    // Another app's Functions stay out of reach.
    const other = await call(client, 'invoke_dev_function', { appId: 'crm', name: 'anything' });
    expect(other.isError).toBe(true);
    expect(codeOf(other)).toBe('AUTH_REQUIRED');
  });

  it('bind an existing connection only as the app owner’s agent, and only app slots', async () => {
    // A person makes the connection: entering credential values is a human action.
    const link = await asDeveloper(`${ws.url}/v1/apps/crm/connections/links`, {
      kind: 'organisation',
      actingAs: 'owner@localhost',
    });
    const { url } = (await link.json()) as { url: string };
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ CRM_API_KEY: 'k-123', CRM_REGION: 'eu' }).toString(),
    });
    const { connections } = (await rest('/v1/apps/crm/connections')).body as {
      connections: { id: string }[];
    };
    const connectionId = connections[0]?.id as string;

    // An editor's agent may use the tools but not bind.
    const { broker } = app('sales');
    // Editors are members of the organisation: Ada was invited before she signed up.
    await inviteToOrganisation(broker, 'ada@example.com');
    const ada = new FakeBrowser(broker);
    await ada.signInByEmail('ada@example.com');
    const adaId = (await broker.auth.account('ada@example.com'))?.id as string;
    await ws.authority.setEditors('sales', [adaId]);
    const editorAgent = await agentOf('sales', 'ada@example.com');
    const refused = await bind(editorAgent, 'crm', connectionId);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { code: 'PERMISSION_DENIED', details: { rule: 'agent-exact-app-owner' } },
    });
    const ownerAgent = await agentOf('sales', 'owner@localhost');
    const bound = await bind(ownerAgent, 'crm', connectionId);
    expect(bound.status).toBe(200);
    expect(await bound.json()).toMatchObject({ binding: { slot: 'crm', connectionId } });
    // No agent makes a connect link, where a person would enter credential values.
    const linkByAgent = await fetch(`${ws.url}/v1/apps/sales/connections/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerAgent}`, 'content-type': 'application/json' },
      body: '{"kind":"organisation"}',
    });
    expect(linkByAgent.status).toBe(403);
    expect(await codeOfResponse(linkByAgent)).toBe('PERMISSION_DENIED');
  });

  it('list and take backups only as the app owner’s agent; restoring stays a person’s action', async () => {
    const { broker } = app('sales');
    await inviteToOrganisation(app('sales').broker, 'ada@example.com');
    const ada = new FakeBrowser(broker);
    await ada.signInByEmail('ada@example.com');
    const adaId = (await broker.auth.account('ada@example.com'))?.id as string;
    await ws.authority.setEditors('sales', [adaId]);
    const connectAs = async (credential: string) => {
      const client = new Client({ name: 'agent-backups', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${ws.url}/v1/mcp?surface=full`), {
          requestInit: { headers: { authorization: `Bearer ${credential}` } },
        }),
      );
      clients.push(client);
      return client;
    };
    const ownerCredential = await agentOf('sales', 'owner@localhost');
    const owner = await connectAs(ownerCredential);
    const taken = await call(owner, 'create_backup', { appId: 'sales' });
    expect(taken.isError ?? false).toBe(false);
    const { backup } = taken.structuredContent as { backup: { id: string; kind: string } };
    expect(backup).toMatchObject({ id: expect.stringMatching(/^bak_/), kind: 'manual' });
    const listed = await call(owner, 'list_backups', { appId: 'sales' });
    expect(listed.isError ?? false).toBe(false);
    expect(listed.structuredContent).toEqual((await rest('/v1/apps/sales/backups')).body);
    expect(JSON.stringify(listed.structuredContent)).toContain(backup.id);
    // Restoring replaces the app's data: even the owner's agent is refused it.
    for (const path of [`${backup.id}/restore`, backup.id]) {
      const response = await fetch(`${ws.url}/v1/apps/sales/backups/${path}`, {
        method: path.endsWith('restore') ? 'POST' : 'DELETE',
        headers: { authorization: `Bearer ${ownerCredential}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status, path).toBe(403);
      expect(await codeOfResponse(response)).toBe('PERMISSION_DENIED');
    }
    // An editor's agent may use the builder's tools, not the owner's backups.
    const editor = await connectAs(await agentOf('sales', 'ada@example.com'));
    for (const name of ['list_backups', 'create_backup']) {
      const refused = await call(editor, name, { appId: 'sales' });
      expect(refused.isError, name).toBe(true);
      expect(codeOf(refused)).toBe('PERMISSION_DENIED');
    }
    expect(
      ((await rest('/v1/apps/sales/backups')).body as { backups: unknown[] }).backups,
    ).toHaveLength(1);
  });

  it('are refused the tools of the console’s actions and of the app’s tokens, as the twins are', async () => {
    const credential = await agentOf('sales', 'owner@localhost');
    const client = new Client({ name: 'agent-console-actions', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ws.url}/v1/mcp?surface=full`), {
        requestInit: { headers: { authorization: `Bearer ${credential}` } },
      }),
    );
    clients.push(client);
    const args: Record<(typeof consoleActionTools)[number], Record<string, unknown>> = {
      retry_background_job: { jobId: 'job_x' },
      cancel_background_job: { jobId: 'job_x' },
      run_cron_schedule: { name: 'nightly' },
      replay_integration_event_delivery: { deliveryId: 'dlv_x' },
      deliver_captured_email: { emailId: 'eml_x' },
      list_app_access_tokens: {},
      create_app_access_token: {},
      revoke_app_access_token: { tokenId: 'tok_x' },
    };
    for (const name of consoleActionTools) {
      const refused = await call(client, name, { appId: 'sales', ...args[name] });
      expect(refused.isError, name).toBe(true);
      expect(codeOf(refused), name).toBe('PERMISSION_DENIED');
    }
    const twin = await fetch(`${ws.url}/v1/apps/sales/jobs/job_x/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}` },
    });
    expect(twin.status).toBe(403);
    expect(await codeOfResponse(twin)).toBe('PERMISSION_DENIED');
    // Nothing was made on its behalf.
    expect(((await rest('/v1/apps/sales/tokens')).body as { tokens: unknown[] }).tokens).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ name: 'token' })]),
    );
  });
});
