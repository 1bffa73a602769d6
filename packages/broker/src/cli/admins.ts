import { ownerApiPaths } from '../http/paths.ts';
import { brokerFetch, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform admins list | add <email> | remove <email>  [--app <dir>] [--json]

Manages this machine's platform administrators: a signed-in platform administrator may open
any app of the workspace for review with their own identity, without a grant (spec 5.3.2). It
adds no membership and no owner control (the dashboard and the owner API stay the owner's);
row-level security, files and Functions apply to them as to anyone. Talks to the running
platform dev with its dev token.

Options:
  --app <dir>     An app folder of the running platform dev (default: the current directory).
  --json          Print list's { administrators: [...] } as JSON.
  -h, --help      Show this help.`;

/** `platform admins list|add|remove`. */
export const adminsCommand = defineCommand({
  name: 'admins',
  summary: 'Platform administrators of this machine, who may open any app for review.',
  usage,
  options: { app: { type: 'string', default: '.' }, json: { type: 'boolean', default: false } },
  maxPositionals: 2,
  actions: ['list', 'add', 'remove'],
  async run(parsed, io, usageError) {
    const [action, email] = parsed.positionals;
    const label = 'admins';
    if (action === 'list' && email === undefined) {
      const answer = await callBroker<{ administrators: string[] }>(
        io,
        parsed.values.app,
        ownerApiPaths.platformAdministrators,
        { label },
      );
      if (typeof answer === 'number') return answer;
      if (parsed.values.json) {
        io.stdout(JSON.stringify(answer, null, 2));
        return exitCodes.ok;
      }
      if (answer.administrators.length === 0) io.stdout('No platform administrators.');
      for (const one of answer.administrators) io.stdout(one);
      return exitCodes.ok;
    }
    if ((action !== 'add' && action !== 'remove') || email === undefined) {
      return usageError('expected list, add <email> or remove <email>');
    }
    const response = await brokerFetch(
      io,
      parsed.values.app,
      `${ownerApiPaths.platformAdministrators}/${encodeURIComponent(email)}`,
      { method: action === 'add' ? 'PUT' : 'DELETE', label },
    );
    if (typeof response === 'number') return response;
    io.stdout(
      action === 'add'
        ? `${email} is a platform administrator.`
        : `${email} is no longer a platform administrator.`,
    );
    return exitCodes.ok;
  },
});
