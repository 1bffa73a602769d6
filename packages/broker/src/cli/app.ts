import { orgApiPaths } from '../http/paths.ts';
import { accessTokenUsage, runAccessToken } from './access-token.ts';
import { appPath, brokerFetch, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform app authority [--app <dir>] [--json]
       platform app authority set use|administer organisation|<email>...|none [--app <dir>]
       platform app authority set editors <email>...|none [--app <dir>]
       platform app authority set owner <email> [--app <dir>]
${accessTokenUsage}

authority: shows or sets who may Use, Administer and Edit the app (docs/organisations.md): its owner, its
Use and Administer audiences (the whole organisation, or listed members) and its editors
besides the owner. It also shows who may open the app: anyone for a public app; for a private
one its owner and the confirmed accounts granted access with platform access grant, whatever
the Use audience, which decides who may use the app's integrations. Organisation administrators always Use and Administer. Talks to the running
platform dev with its dev token.

Options:
  --app <dir>     The app folder (default: the current directory).
  --name <name>   The token's label, for request and create (default "token").
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

interface Facts {
  appId: string;
  owner: string | null;
  visibility: 'public' | 'private';
  open: 'anyone' | 'granted';
  use: { kind: string; accounts?: string[] };
  administer: { kind: string; accounts?: string[] };
  editors: string[];
}

const audienceText = (audience: Facts['use']) =>
  audience.kind === 'organisation'
    ? 'the whole organisation'
    : audience.accounts?.length
      ? audience.accounts.join(', ')
      : 'nobody listed';

/** The body of `PUT .../authority/<fact>` for `set <fact> <values...>`, or a usage problem. */
function factBody(fact: string, values: readonly string[]): unknown | string {
  const none = values.length === 1 && values[0] === 'none';
  if (fact === 'use' || fact === 'administer') {
    if (values.length === 1 && values[0] === 'organisation') return { kind: 'organisation' };
    if (values.length === 0) return 'expected organisation, none or member emails';
    return { kind: 'accounts', accounts: none ? [] : values };
  }
  if (fact === 'editors') {
    if (values.length === 0) return 'expected none or member emails';
    return { accounts: none ? [] : values };
  }
  if (fact === 'owner') {
    if (values.length !== 1) return 'expected the owner’s email';
    return { account: values[0] };
  }
  return `unknown fact "${fact}": use, administer, editors or owner`;
}

/** `platform app authority [set <fact> <values...>]` and `platform app access-token ...`. */
export const appCommand = defineCommand({
  name: 'app',
  summary: "The app's authority (who may Use, Administer, Edit) and its access tokens.",
  usage,
  options: {
    app: { type: 'string', default: '.' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 50,
  async run(parsed, io, usageError) {
    const [topic, action, fact, ...values] = parsed.positionals;
    if (topic === 'access-token') {
      if (values.length > 0) return usageError('too many arguments');
      const ran = await runAccessToken(io, action, fact, {
        app: parsed.values.app,
        name: parsed.values.name,
        json: parsed.values.json,
      });
      return typeof ran === 'string' ? usageError(ran) : ran;
    }
    if (topic !== 'authority') return usageError('expected: platform app authority|access-token');
    const label = 'app authority';
    if (action === undefined) {
      const facts = await callBroker<Facts>(io, parsed.values.app, appPath(orgApiPaths.authority), {
        label,
      });
      if (typeof facts === 'number') return facts;
      if (parsed.values.json) {
        io.stdout(JSON.stringify(facts, null, 2));
        return exitCodes.ok;
      }
      io.stdout(`App ${facts.appId}`);
      io.stdout(`Owner:       ${facts.owner ?? '(none yet)'}`);
      // Who may open the app and who may use its integrations are two facts: the Use audience
      // never admits anyone to a private app, whose page refuses an account without a grant.
      io.stdout(
        `Open:        ${
          facts.open === 'anyone'
            ? 'anyone (a public app)'
            : 'the owner and confirmed accounts granted access (platform access grant <email>; platform access list), and platform administrators for review (a private app)'
        }`,
      );
      io.stdout(`Use:         ${audienceText(facts.use)} (and administrators): its integrations`);
      io.stdout(`Administer:  ${audienceText(facts.administer)} (and the owner, administrators)`);
      io.stdout(`Edit:        ${[facts.owner ?? '(no owner)', ...facts.editors].join(', ')}`);
      return exitCodes.ok;
    }
    if (action !== 'set' || fact === undefined) {
      return usageError('expected: platform app authority [set <fact> <values...>]');
    }
    const body = factBody(fact, values);
    if (typeof body === 'string') return usageError(body);
    const response = await brokerFetch(
      io,
      parsed.values.app,
      appPath(orgApiPaths.authorityFact, { fact }),
      { method: 'PUT', json: body, label },
    );
    if (typeof response === 'number') return response;
    io.stdout(`Set ${fact} of the app.`);
    return exitCodes.ok;
  },
});
