// The agent tools over MCP (spec 4.4), with the official client: served by `platform dev` on
// `{base_url}/v1/mcp` (streamable HTTP, dev token, loopback Host and Origin only) and by
// `platform mcp` over stdio. Each tool answers what its REST twin on the owner API answers:
// the same JSON as structured content, or the same error code.

import { spawn } from 'node:child_process';
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

beforeAll(async () => {
  served = await salesCrmWorkspace('mcp-');
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

type ToolAnswer = { structuredContent?: unknown; isError?: boolean; content: { text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;
const codeOf = (answer: ToolAnswer) => answer.content[0]?.text?.split(':')[0];

describe('the agent tools', () => {
  it('list the spec’s tools with schemas and hints; the focused surface omits the job diagnostics', async () => {
    const focused = (await (await connect('focused')).listTools()).tools;
    const full = (await (await connect('full')).listTools()).tools;
    expect(full.map((t) => t.name).sort()).toEqual([
      'create_backup',
      'get_background_job',
      'inject_dev_integration_event',
      'invoke_dev_function',
      'list_background_jobs',
      'list_backups',
      'list_custom_integrations',
      'list_integration_event_deliveries',
      'set_dev_integration_mode',
      'set_dev_integration_test_connection',
      'start_onboarding',
    ]);
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
    expect(toolNames(listed.out)).toHaveLength(11);
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
});
