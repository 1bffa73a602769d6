import { ownerApiPaths } from '../http/paths.ts';
import { appPath, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform access grant <email> | revoke <email> | list  [--app <dir>] [--json]

Manages who may open the app when it is private (platform.yaml visibility: private, the
default): a signed-in account without a grant gets HTTP 403. Talks to the running platform dev.

Options:
  --app <dir>     The app folder (default: the current directory).
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

/** `platform access grant|revoke <email>` and `platform access list`. */
export const accessCommand = defineCommand({
  name: 'access',
  summary: 'Grant or revoke access to a private app (grant <email>, revoke <email>, list).',
  usage,
  options: { app: { type: 'string', default: '.' }, json: { type: 'boolean', default: false } },
  maxPositionals: 2,
  actions: ['grant', 'revoke', 'list'],
  async run(parsed, io, usageError) {
    const [action, email] = parsed.positionals;
    const needsEmail = action === 'grant' || action === 'revoke';
    if (
      !(needsEmail || action === 'list') ||
      (needsEmail && !email) ||
      (action === 'list' && email)
    ) {
      return usageError('expected grant <email>, revoke <email> or list');
    }
    const app = parsed.values.app;
    const label = 'access';
    const answer = await callBroker<Record<string, unknown>>(
      io,
      app,
      action === 'revoke'
        ? appPath(`${ownerApiPaths.access}/:email`, { email: email ?? '' })
        : appPath(ownerApiPaths.access),
      action === 'grant'
        ? { json: { email }, label }
        : { method: action === 'revoke' ? 'DELETE' : 'GET', label },
    );
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
});
