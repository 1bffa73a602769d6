// What the agent tools cost an agent before it does anything: the `tools/list` answer of the
// focused builder surface, in tokens of the o200k tokenizer (GPT-4o and later), against the full
// surface in the same run. The answer is taken from the real server over its HTTP handler, so
// what is counted is what a client receives.
import { createMcpHandler } from '@modelcontextprotocol/server';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { agentServer } from '../../packages/broker/src/mcp/agent-server.ts';
import type { ToolSurface } from '../../packages/broker/src/mcp/agent-tools.ts';
import { type Row, row } from '../report.ts';

const GOAL_TOKENS = 2_500;

async function listedTools(surface: ToolSurface): Promise<string> {
  const handler = createMcpHandler(
    () =>
      agentServer(surface, async () => {
        throw new Error('tools/list sends nothing');
      }),
    { responseMode: 'json' },
  );
  const response = await handler.fetch(
    new Request('http://localhost/v1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    }),
  );
  const body = (await response.json()) as { result?: { tools?: unknown[] } };
  if (!body.result?.tools) throw new Error(`tools/list answered ${JSON.stringify(body)}`);
  // The tools as the model sees them: the JSON of the list, without the JSON-RPC frame.
  return JSON.stringify(body.result.tools);
}

/** Tokens of the focused surface's tool list against the full surface's. */
export async function run(): Promise<Row[]> {
  const focused = encode(await listedTools('focused')).length;
  const full = encode(await listedTools('full')).length;
  return [
    row(
      'mcp tools/list tokens (focused vs full surface)',
      `${focused} tokens`,
      `${full} tokens`,
      focused / full,
      { text: `focused < ${GOAL_TOKENS} tokens`, met: focused < GOAL_TOKENS },
    ),
  ];
}
