import { resolve } from 'node:path';
import type { PlatformError } from '@platform/errors';
import type { AgentCredentialInfo } from '../auth/agent-credentials.ts';
import { ownerApiPaths } from '../http/paths.ts';
import { appPath, callBroker } from './broker-call.ts';
import { requestCredential } from './credential-request.ts';
import { openCredentialStore } from './credential-store.ts';
import { findDev } from './dev-client.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform agent login [--name <name>] [--app <dir>]
       platform agent list [--app <dir>] [--json]
       platform agent revoke <id> [--app <dir>]
       platform agent logout [--app <dir>]

An agent credential lets a coding agent act for one person on one app with a credential of its
own, never the browser session (docs/agents.md): the agent tools, and for the app's owner the
binding of existing connections. No command prints one.
  login   asks the person the agent will act for (one who may change the app) to approve in the
          browser, then keeps the credential in the operating system's credential store under
          "agent/<app id>"; platform mcp --agent uses it;
  list    the app's agent credentials; revoke ends one at once;
  logout  revokes the credential kept here and forgets it.

Options:
  --app <dir>     The app folder (default: the current directory).
  --name <name>   The credential's label, for login (default "agent").
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

/** Where `platform agent login` keeps the app's agent credential in the credential store. */
export const storedAgentAccount = (appId: string): string => `agent/${appId}`;

/** `platform agent login|list|revoke|logout`. */
export const agentCommand = defineCommand({
  name: 'agent',
  summary:
    'Get, list or revoke the credentials coding agents act with (login, list, revoke, logout).',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  actions: ['login', 'list', 'revoke', 'logout'],
  async run(parsed, io, usageError) {
    const [action, id] = parsed.positionals;
    const { app } = parsed.values;
    const label = `agent ${action ?? ''}`.trim();
    if (action === 'login' && id === undefined) {
      return requestCredential(io, {
        app,
        name: parsed.values.name ?? 'agent',
        kind: 'agent',
        label,
        account: storedAgentAccount,
        approver: 'the person the agent will act for',
      });
    }
    if (action === 'list' && id === undefined) {
      const answer = await callBroker<{ agents: AgentCredentialInfo[] }>(
        io,
        app,
        appPath(ownerApiPaths.agents),
        { label },
      );
      if (typeof answer === 'number') return answer;
      if (parsed.values.json) io.stdout(JSON.stringify(answer, null, 2));
      else if (answer.agents.length === 0) io.stdout('No agent credentials.');
      else
        for (const a of answer.agents)
          io.stdout(
            `${a.id}  ${a.hint}  ${a.name}  for ${a.accountId}  last used ${a.lastUsedAt ?? 'never'}`,
          );
      return exitCodes.ok;
    }
    if (action === 'revoke' && id !== undefined) {
      const answer = await callBroker(io, app, appPath(`${ownerApiPaths.agents}/:id`, { id }), {
        method: 'DELETE',
        label,
      });
      if (typeof answer === 'number') return answer;
      io.stdout(`Revoked ${id}.`);
      return exitCodes.ok;
    }
    if (action === 'logout' && id === undefined) return logout(io, app, label);
    return usageError('expected login, list, revoke <id> or logout');
  },
});

// Revoke the credential kept for the app (found by its first characters), then forget it.
async function logout(io: Parameters<typeof requestCredential>[0], app: string, label: string) {
  const dev = await findDev(resolve(io.cwd, app));
  if (typeof dev === 'string') {
    io.stderr(`platform ${label}: ${dev}`);
    return exitCodes.failed;
  }
  try {
    const store = await openCredentialStore();
    const account = storedAgentAccount(dev.appId);
    const kept = await store.get(account);
    if (kept === undefined) {
      io.stdout(`No agent credential is kept here for ${dev.appId}.`);
      return exitCodes.ok;
    }
    const listed = await callBroker<{ agents: AgentCredentialInfo[] }>(
      io,
      app,
      appPath(ownerApiPaths.agents),
      {
        label,
      },
    );
    if (typeof listed === 'number') return listed;
    const live = listed.agents.find((a) => kept.startsWith(a.hint.slice(0, -1)));
    if (live !== undefined) {
      const revoked = await callBroker(
        io,
        app,
        appPath(`${ownerApiPaths.agents}/:id`, { id: live.id }),
        {
          method: 'DELETE',
          label,
        },
      );
      if (typeof revoked === 'number') return revoked;
    }
    await store.delete(account);
    io.stdout(`Revoked and forgot the agent credential of ${dev.appId}.`);
    return exitCodes.ok;
  } catch (error) {
    io.stderr(`platform ${label}: ${(error as PlatformError).message}`);
    return exitCodes.failed;
  }
}
