import { controlPaths } from '../auth/control-routes.ts';
import { type CliIO, type Command, exitCodes } from './io.ts';
import { ownerApi, parseOwnerArgs } from './owner-api.ts';

const usage = `Usage: platform access grant <email> | revoke <email> | list  [--app <dir>] [--json]

Manages who may open the app when it is private (platform.yaml visibility: private, the
default): a signed-in account without a grant gets HTTP 403. Talks to the running platform dev.

Options:
  --app <dir>     The app folder (default: the current directory).
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

/** `platform access grant|revoke <email>` and `platform access list`. */
export const accessCommand: Command = {
  summary: 'Grant or revoke access to a private app (grant <email>, revoke <email>, list).',
  usage,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let parsed: ReturnType<typeof parseOwnerArgs>;
    try {
      parsed = parseOwnerArgs(args);
    } catch (error) {
      io.stderr(`platform access: ${(error as Error).message}\n\n${usage}`);
      return exitCodes.usage;
    }
    if (parsed.values.help) {
      io.stdout(usage);
      return exitCodes.ok;
    }
    const [action, email, ...extra] = parsed.positionals;
    const needsEmail = action === 'grant' || action === 'revoke';
    if (
      !(needsEmail || action === 'list') ||
      (needsEmail && !email) ||
      extra.length > 0 ||
      (action === 'list' && email)
    ) {
      io.stderr(`platform access: expected grant <email>, revoke <email> or list\n\n${usage}`);
      return exitCodes.usage;
    }
    const app = parsed.values.app;
    const answer =
      action === 'grant'
        ? await ownerApi(io, 'access', app, {
            method: 'POST',
            path: controlPaths.access,
            body: { email },
          })
        : action === 'revoke'
          ? await ownerApi(io, 'access', app, {
              method: 'DELETE',
              path: `${controlPaths.access}/${encodeURIComponent(email ?? '')}`,
            })
          : await ownerApi(io, 'access', app, { method: 'GET', path: controlPaths.access });
    if (typeof answer === 'number') return answer;
    if (parsed.values.json) {
      io.stdout(JSON.stringify(answer, null, 2));
      return exitCodes.ok;
    }
    if (action === 'grant') {
      io.stdout(
        answer.granted ? `Granted ${answer.email} access.` : `${answer.email} already had access.`,
      );
    } else if (action === 'revoke') {
      io.stdout(
        answer.revoked ? `Revoked access of ${answer.email}.` : `${answer.email} had no grant.`,
      );
    } else {
      const grants = answer.grants as Array<{ email: string; grantedAt: string }>;
      if (grants.length === 0) io.stdout('No grants. Only the owner can open this private app.');
      for (const grant of grants) io.stdout(`${grant.email}  (since ${grant.grantedAt})`);
    }
    return exitCodes.ok;
  },
};
