import { resolve } from 'node:path';
import type { PlatformError } from '@platform/errors';
import { oneAppSender } from '../mcp/agent-http.ts';
import { storedAgentAccount } from './agent.ts';
import { openCredentialStore } from './credential-store.ts';
import { findDev } from './dev-client.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform mcp [--app <dir>] [--full] [--agent]

Serves the agent tools over stdio (MCP) for the platform dev that serves the app: a coding agent
starts it as its MCP server. The tools act on that app through its owner API with the dev token
of .platform/dev.json, or with --agent as the person whose agent credential platform agent login
kept in the operating system's credential store (docs/agents.md). The running platform dev
serves the same tools over HTTP at <its URL>/v1/mcp.

Options:
  --app <dir>     The app folder (default: the current directory).
  --full          The full surface: adds the production diagnostics (background jobs) to the
                  focused builder surface.
  --agent         Act with the agent credential kept for the app (platform agent login).
  -h, --help      Show this help.`;

/** `platform mcp`: the agent tools over stdio until the client closes stdin. */
export const mcpCommand = defineCommand({
  name: 'mcp',
  summary: 'Serve the agent tools over stdio (MCP) for the running platform dev.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    full: { type: 'boolean', default: false },
    agent: { type: 'boolean', default: false },
  },
  async run(parsed, io) {
    const dev = await findDev(resolve(io.cwd, parsed.values.app));
    if (typeof dev === 'string') {
      io.stderr(`platform mcp: ${dev}`);
      return exitCodes.failed;
    }
    const surface = parsed.values.full ? 'full' : 'focused';
    let credential = dev.token;
    if (parsed.values.agent) {
      try {
        const kept = await (await openCredentialStore()).get(storedAgentAccount(dev.appId));
        if (kept === undefined) {
          io.stderr(
            `platform mcp: no agent credential is kept for ${dev.appId}; run platform agent login first.`,
          );
          return exitCodes.failed;
        }
        credential = kept;
      } catch (error) {
        io.stderr(`platform mcp: ${(error as PlatformError).message}`);
        return exitCodes.failed;
      }
    }
    const send = oneAppSender({ appId: dev.appId, origin: dev.url, credential }, fetch);
    // Loaded here, not with the CLI: every other command would pay for the MCP SDK.
    const [{ serveStdio }, { agentServer }] = await Promise.all([
      import('@modelcontextprotocol/server/stdio'),
      import('../mcp/agent-server.ts'),
    ]);
    const handle = serveStdio(() => agentServer(surface, send));
    await new Promise<void>((done) => {
      process.stdin.once('end', done);
      process.stdin.once('close', done);
    });
    await handle.close();
    return exitCodes.ok;
  },
});
