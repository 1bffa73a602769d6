// The agent tools over HTTP answer on loopback names and on the service's own host name
// (`platform serve`'s base domain), and refuse every other Host before any tool runs.
import { describe, expect, it } from 'vitest';
import { agentHttp } from '../../src/mcp/agent-http.ts';

const listTools = (tools: (request: Request) => Promise<Response>, host: string) =>
  tools(
    new Request('http://agent.invalid/v1/mcp', {
      method: 'POST',
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    }),
  );

describe('the agent tools over HTTP', () => {
  const tools = agentHttp(() => async () => Response.json({}), 'platform.example');

  it("answer on loopback and on the service's host name, with or without a port", async () => {
    for (const host of ['localhost:4000', 'platform.example', 'platform.example:8443']) {
      const answer = await listTools(tools, host);
      expect(answer.status, host).toBe(200);
      // The tool list (a JSON-RPC result, possibly as one server-sent event).
      expect(await answer.text(), host).toContain('"name":"start_onboarding"');
    }
  });

  it('refuse any other host, a name under the service host included', async () => {
    for (const host of ['attacker.example', 'app.platform.example', 'platform.example.evil']) {
      expect((await listTools(tools, host)).status, host).toBe(403);
    }
    const loopbackOnly = agentHttp(() => async () => Response.json({}));
    expect((await listTools(loopbackOnly, 'platform.example')).status).toBe(403);
  });
});
