import { fillPath } from '@platform/schema/routes';
import { orgApiPaths } from '../http/paths.ts';
import { brokerFetch, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform org members [--json]
       platform org role <email> member|administrator --as <email>
       platform org remove <email> --as <email>
       platform org invite <email> --as <email>
       [--app <dir>]

The organisation's members and their roles (docs/organisations.md). Every account belongs to
exactly one company: the organisation, or a personal company of its own. Only an administrator's
invitation, accepted by the person on their account page (or used by signing up with the invited
address within 7 days), brings an account into the organisation. Only administrators change
roles and remove members; the only administrator cannot step down or leave until another
member is administrator. The dev token of this machine is not an account, so a change names the
member on whose authority it is made (--as); the organisation's rules apply to that member.
Talks to the running platform dev.

Options:
  --as <email>    The member making the change (to leave, the member's own address).
  --app <dir>     An app folder of the running platform dev (default: the current directory).
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

interface Member {
  email: string;
  role: string;
}

/** `platform org members|role|remove|invite`. */
export const orgCommand = defineCommand({
  name: 'org',
  summary: "The organisation's members and roles (members, role, remove, invite).",
  usage,
  options: {
    app: { type: 'string', default: '.' },
    as: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 3,
  actions: ['members', 'role', 'remove', 'invite'],
  async run(parsed, io, usageError) {
    const [action, email, role] = parsed.positionals;
    const { app, as: actingAs } = parsed.values;
    const label = 'org';
    if (action === 'members' && email === undefined) {
      const answer = await callBroker<{ members: Member[] }>(io, app, orgApiPaths.members, {
        label,
      });
      if (typeof answer === 'number') return answer;
      if (parsed.values.json) io.stdout(JSON.stringify(answer, null, 2));
      else for (const member of answer.members) io.stdout(`${member.email}  ${member.role}`);
      return exitCodes.ok;
    }
    if (action === 'role' && email !== undefined && role !== undefined) {
      if (actingAs === undefined) return usageError('--as <email> names who makes the change');
      const answer = await callBroker<{ member: Member }>(
        io,
        app,
        fillPath(orgApiPaths.memberRole, { email }),
        { method: 'PUT', json: { role, actingAs }, label },
      );
      if (typeof answer === 'number') return answer;
      io.stdout(`${answer.member.email} is now ${answer.member.role}.`);
      return exitCodes.ok;
    }
    if (action === 'remove' && email !== undefined && role === undefined) {
      if (actingAs === undefined) return usageError('--as <email> names who makes the change');
      const path = `${fillPath(orgApiPaths.member, { email })}?actingAs=${encodeURIComponent(actingAs)}`;
      const response = await brokerFetch(io, app, path, { method: 'DELETE', label });
      if (typeof response === 'number') return response;
      io.stdout(`${email} is no longer a member of the organisation.`);
      return exitCodes.ok;
    }
    if (action === 'invite' && email !== undefined && role === undefined) {
      if (actingAs === undefined) return usageError('--as <email> names who invites');
      const answer = await callBroker<{
        email: string;
        state: 'member' | 'invited';
        expiresAt: string | null;
      }>(io, app, orgApiPaths.members, { method: 'POST', json: { email, actingAs }, label });
      if (typeof answer === 'number') return answer;
      io.stdout(
        answer.state === 'member'
          ? `${answer.email} is a member of the organisation already.`
          : `${answer.email} is invited until ${answer.expiresAt}: an invitation email is on its way; the address joins when its account accepts on its account page, or when it signs up.`,
      );
      return exitCodes.ok;
    }
    return usageError(
      'expected members, role <email> <role> --as <email>, remove <email> --as <email> or invite <email> --as <email>',
    );
  },
});
