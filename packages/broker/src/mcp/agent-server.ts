import {
  type CallToolResult,
  McpServer,
  ProtocolError,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { isPlatformError } from '@platform/errors';
import { fillPath } from '@platform/schema/routes';
import { jobsApiPaths } from '../http/paths.ts';
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
  server.registerResource(
    'agent_feed',
    new ResourceTemplate(FEED_URI, { list: undefined }),
    {
      title: 'Agent Feed',
      description:
        'The app’s background-job signals (jobs.created, jobs.retried, jobs.succeeded, jobs.failed, jobs.active) over the last hour, its job failure events and the built-in failure alert, as GET /v1/apps/{appId}/feed answers them.',
      mimeType: 'application/json',
    },
    (uri, variables) => readFeed(uri, String(variables.appId ?? ''), send),
  );
  return server;
}

/** The Agent Feed's resource: the twin of `GET /v1/apps/{appId}/feed`. */
export const FEED_URI = 'platform://apps/{appId}/feed';

// A resource read has no error result: a refused twin is a protocol error carrying its code.
async function readFeed(uri: URL, appId: string, send: SendTwin) {
  const answer = await sendTwin(send, {
    appId,
    method: 'GET',
    path: fillPath(jobsApiPaths.feed, { appId }),
  });
  if ('code' in answer) {
    if (answer.code === 'APP_NOT_FOUND') throw new ResourceNotFoundError(uri.href, answer.message);
    // -32603: the JSON-RPC code for an error of the server, with the twin's code as data.
    throw new ProtocolError(-32603, `${answer.code}: ${answer.message}`, { code: answer.code });
  }
  return {
    contents: [{ uri: uri.href, mimeType: 'application/json', text: answer.text }],
  };
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
  const answer = await sendTwin(send, tool.twin(input));
  if ('code' in answer) return errorResult(answer.code, answer.message);
  return {
    content: [{ type: 'text', text: answer.text }],
    structuredContent: answer.body as Record<string, unknown>,
  };
}

/** Sends a twin: its JSON body (and text), or the code and message of its error. */
async function sendTwin(
  send: SendTwin,
  twin: TwinRequest,
): Promise<{ text: string; body: unknown } | { code: string; message: string }> {
  let response: Response;
  try {
    response = await send(twin);
  } catch (error) {
    if (isPlatformError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { code: 'INTERNAL', message: `The broker answered ${response.status} without JSON.` };
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } }).error;
    return {
      code: error?.code ?? 'INTERNAL',
      message: error?.message ?? `HTTP ${response.status}`,
    };
  }
  return { text, body };
}
