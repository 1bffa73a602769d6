// The agent tools speak both MCP protocol eras on both transports: the 2025-11-25 era (an
// `initialize` handshake first) and the stateless 2026-07-28 era (no handshake, no session; each
// request carries its own envelope). In each, unknown tool parameters are refused, an error
// result carries no structured content, and a successful result validates against the tool's
// declared output schema under a strict JSON Schema validator.

import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceServer } from '../../src/app/start-workspace.ts';
import { platformMcpStdio, salesCrmWorkspace } from './sales-crm-workspace.ts';

let served: Awaited<ReturnType<typeof salesCrmWorkspace>>;
let ws: WorkspaceServer;
const clients: Client[] = [];

beforeAll(async () => {
  served = await salesCrmWorkspace('mcp-eras-');
  ws = served.ws;
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await served?.close();
});

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
type Era = typeof MODERN | typeof LEGACY;
type Transport = 'http' | 'stdio';

async function connect(transport: Transport, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'era-agent', version: '1.0.0' },
    era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(
    transport === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${ws.url}/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${ws.devToken}` } },
        })
      : platformMcpStdio(join(served.dir, 'sales')),
  );
  clients.push(client);
  return client;
}

type ToolAnswer = {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  content: { text?: string }[];
};
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;

// Strict mode refuses unknown keywords and loose types in the schema itself, so a schema the
// tools declare sloppily fails here before any result is checked.
const strict = new Ajv2020({ strict: true, allErrors: true });

describe.each<[Transport, Era]>([
  ['http', LEGACY],
  ['http', MODERN],
  ['stdio', LEGACY],
  ['stdio', MODERN],
])('the agent tools over %s in the %s era', (transport, era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(transport, era);
  }, 60_000);

  it('negotiate that era and list the focused tools, each refusing unknown parameters', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(() => strict.compile((tool.outputSchema ?? {}) as object), tool.name).not.toThrow();
    }
  });

  it('answer a successful call with structured content valid under its output schema', async () => {
    const { tools } = await client.listTools();
    const declared = tools.find((t) => t.name === 'list_integration_event_deliveries');
    const answer = await call(client, 'list_integration_event_deliveries', { appId: 'sales' });
    expect(answer.isError).toBeFalsy();
    const validate = strict.compile((declared?.outputSchema ?? {}) as object);
    expect(validate(answer.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuse an unknown parameter, and carry no structured content on an error', async () => {
    const unknown = await call(client, 'list_integration_event_deliveries', {
      appId: 'sales',
      since: 'yesterday',
    });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toBeUndefined();
    expect(unknown.content[0]?.text).toContain('since');
    const failed = await call(client, 'list_integration_event_deliveries', { appId: 'nope' });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toBeUndefined();
    expect(failed.content[0]?.text).toMatch(/^APP_NOT_FOUND: /);
  });
});

describe('the stateless era over HTTP', () => {
  it('answers a request with no handshake before it and opens no session', async () => {
    const response = await fetch(`${ws.url}/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ws.devToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const body = (await response.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools).toHaveLength(7);
  });
});
