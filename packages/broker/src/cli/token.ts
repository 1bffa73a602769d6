import type { AppTokenInfo } from '../auth/app-tokens.ts';
import { controlPaths } from '../auth/control-routes.ts';
import { type CliIO, type Command, exitCodes } from './io.ts';
import { ownerApi, parseOwnerArgs } from './owner-api.ts';

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
export const tokenCommand: Command = {
  summary: 'Create, list or revoke app access tokens (create [--name], list, revoke <id>).',
  usage,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let parsed: ReturnType<typeof parseOwnerArgs>;
    try {
      parsed = parseOwnerArgs(args);
    } catch (error) {
      io.stderr(`platform token: ${(error as Error).message}\n\n${usage}`);
      return exitCodes.usage;
    }
    if (parsed.values.help) {
      io.stdout(usage);
      return exitCodes.ok;
    }
    const [action, id, ...extra] = parsed.positionals;
    const valid =
      (action === 'revoke' && id) || ((action === 'create' || action === 'list') && !id);
    if (!valid || extra.length > 0) {
      io.stderr(`platform token: expected create, list or revoke <id>\n\n${usage}`);
      return exitCodes.usage;
    }
    const app = parsed.values.app;
    const answer =
      action === 'create'
        ? await ownerApi(io, 'token', app, {
            method: 'POST',
            path: controlPaths.tokens,
            body: { name: parsed.values.name ?? 'token' },
          })
        : action === 'revoke'
          ? await ownerApi(io, 'token', app, {
              method: 'DELETE',
              path: `${controlPaths.tokens}/${encodeURIComponent(id ?? '')}`,
            })
          : await ownerApi(io, 'token', app, { method: 'GET', path: controlPaths.tokens });
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
};
