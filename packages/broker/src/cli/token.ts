import type { AppTokenInfo } from '../auth/app-tokens.ts';
import { brokerApiPaths } from '../http/paths.ts';
import { callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform token create [--name <name>] | list | revoke <id>  [--app <dir>] [--json]

App access tokens act as the app's owner on its runtime (REST, Functions, files), sent as
Authorization: Bearer plat_app_...; never on the broker API. The value is shown once, at
creation; the broker keeps only its SHA-256. Talks to the running platform dev.

Options:
  --name <name>   A label for create (default "token").
  --app <dir>     The app folder (default: the current directory).
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

/** `platform token create|list|revoke`. */
export const tokenCommand = defineCommand({
  name: 'token',
  summary: 'Create, list or revoke app access tokens (create [--name], list, revoke <id>).',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  async run(parsed, io, usageError) {
    const [action, id] = parsed.positionals;
    const valid =
      (action === 'revoke' && id) || ((action === 'create' || action === 'list') && !id);
    if (!valid) return usageError('expected create, list or revoke <id>');
    const label = 'token';
    const answer = await callBroker<Record<string, unknown>>(
      io,
      parsed.values.app,
      action === 'revoke'
        ? `${brokerApiPaths.tokens}/${encodeURIComponent(id ?? '')}`
        : brokerApiPaths.tokens,
      action === 'create'
        ? { json: { name: parsed.values.name ?? 'token' }, label }
        : { method: action === 'revoke' ? 'DELETE' : 'GET', label },
    );
    if (typeof answer === 'number') return answer;
    if (parsed.values.json) {
      io.stdout(JSON.stringify(answer, null, 2));
    } else if (action === 'create') {
      io.stdout(
        `Created ${answer.id} (${answer.name}). Copy the token now; it is not shown again:`,
      );
      io.stdout(String(answer.token));
    } else if (action === 'revoke') {
      io.stdout(`Revoked ${answer.id}.`);
    } else {
      const tokens = answer.tokens as AppTokenInfo[];
      if (tokens.length === 0) io.stdout('No app access tokens.');
      for (const t of tokens)
        io.stdout(
          `${t.id}  ${t.hint}  ${t.name}  created ${t.createdAt}  last used ${t.lastUsedAt ?? 'never'}`,
        );
    }
    return exitCodes.ok;
  },
});
