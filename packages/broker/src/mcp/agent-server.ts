import { type CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { isPlatformError } from '@platform/errors';
import { brokerPackage } from '../kernel/broker-package.ts';
import { type AgentTool, agentTools, type ToolSurface, type TwinRequest } from './agent-tools.ts';

/** Sends a tool's REST twin to the app it names, with the dev token; answers its response. */
export type SendTwin = (request: TwinRequest) => Promise<Response>;

const errorResult = (code: string, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `${code}: ${message}` }],
});

/**
 * An MCP server with the agent tools of `surface` (docs/agents.md), for one connection or one
 * HTTP request. Each tool sends its REST twin through `send` and answers the JSON body as
 * structured content (and as text, for clients that read only that); an error of the twin is a
 * tool error carrying the same code and message.
 */
export function agentServer(surface: ToolSurface, send: SendTwin): McpServer {
  const server = new McpServer(
    { name: 'platform-dev', title: 'platform dev agent tools', version: brokerPackage.version },
    { capabilities: { tools: {} } },
  );
  for (const tool of agentTools) {
    if (!tool.surfaces.includes(surface)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      (input: Record<string, unknown>) => callTool(tool, input, send),
    );
  }
  return server;
}

async function callTool(
  tool: AgentTool,
  input: Record<string, unknown>,
  send: SendTwin,
): Promise<CallToolResult> {
  if (!tool.twin) {
    return errorResult(
      'FEATURE_NOT_AVAILABLE',
      `${tool.name} is not available in platform dev yet; it answers nothing rather than a pretend success.`,
    );
  }
  let response: Response;
  try {
    response = await send(tool.twin(input));
  } catch (error) {
    if (isPlatformError(error)) return errorResult(error.code, error.message);
    throw error;
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return errorResult('INTERNAL', `The broker answered ${response.status} without JSON.`);
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } }).error;
    return errorResult(error?.code ?? 'INTERNAL', error?.message ?? `HTTP ${response.status}`);
  }
  return {
    content: [{ type: 'text', text }],
    structuredContent: body as Record<string, unknown>,
  };
}
