import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { PlatformError } from '@platform/errors';
import { readBearer } from '../http/bearer.ts';
import type { SendTwin } from './agent-server.ts';
import type { ToolSurface, TwinRequest } from './agent-tools.ts';

/**
 * Sends the tools' REST twins to the one app served at `origin` (a single `platform dev`, or
 * `platform mcp` in an app folder) with `fetcher` and `credential` (the dev token, or an agent
 * credential); a tool naming another app is `APP_NOT_FOUND`.
 */
export function oneAppSender(
  app: { readonly appId: string; readonly origin: string; readonly credential: string },
  fetcher: (request: Request) => Response | Promise<Response>,
): SendTwin {
  return async (twin) => {
    if (twin.appId !== app.appId) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `This platform dev serves the app "${app.appId}", not "${twin.appId}".`,
        details: { appId: twin.appId },
      });
    }
    return fetcher(twinRequest(twin, app.origin, app.credential));
  };
}

/**
 * The HTTP request of a tool's REST twin, to the app served at `origin`, with the credential the
 * tool was called with: the owner API checks it as it would the same request sent directly.
 */
export function twinRequest(twin: TwinRequest, origin: string, credential: string): Request {
  return new Request(new URL(twin.path, origin), {
    method: twin.method,
    headers: {
      authorization: `Bearer ${credential}`,
      ...(twin.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(twin.json === undefined ? {} : { body: JSON.stringify(twin.json) }),
  });
}

/**
 * The agent tools over streamable HTTP (docs/agents.md), stateless: each request gets a fresh
 * server of its surface (`?surface=full` for the full one, the focused builder surface
 * otherwise) whose tools send their twins with the request's own bearer credential
 * (`sendAs(credential)`). A request whose `Host` is not this machine's loopback (`localhost`,
 * `*.localhost`, `127.0.0.1`, `[::1]`) or whose `Origin` is another site's is refused before any
 * tool runs, so a web page cannot reach the tools through DNS rebinding. `serviceHost` is the
 * one other name they answer on: `platform serve`'s base domain, where agents reach them on
 * purpose. Whoever mounts it checks the credential first (the dev token, or an agent
 * credential).
 */
export function agentHttp(
  sendAs: (credential: string) => SendTwin,
  serviceHost?: string,
): (request: Request) => Promise<Response> {
  const handlers = new Map<ToolSurface, McpHttpHandler>();
  return async (request) => {
    // Loaded with the first request: most runs of the broker never serve the agent tools.
    const mcp = await import('@modelcontextprotocol/server');
    const rejected =
      mcp.hostHeaderValidationResponse(request, [
        ...mcp.localhostAllowedHostnames(),
        ...subdomains(request),
        ...(serviceHost === undefined ? [] : [serviceHost]),
      ]) ?? mcp.originValidationResponse(request, mcp.localhostAllowedOrigins());
    if (rejected) return rejected;
    const surface =
      new URL(request.url).searchParams.get('surface') === 'full' ? 'full' : 'focused';
    let handler = handlers.get(surface);
    if (!handler) {
      const { agentServer } = await import('./agent-server.ts');
      // One server per request, whose tools send with that request's own credential.
      handler = mcp.createMcpHandler(
        ({ requestInfo }) =>
          agentServer(surface, sendAs(readBearer(requestInfo?.headers.get('authorization')) ?? '')),
        { responseMode: 'json' },
      );
      handlers.set(surface, handler);
    }
    return handler.fetch(request);
  };
}

// `<app>.localhost` host names of a workspace's apps are loopback too.
function subdomains(request: Request): string[] {
  const host = request.headers.get('host')?.replace(/:\d+$/, '') ?? '';
  return host.endsWith('.localhost') ? [host] : [];
}
