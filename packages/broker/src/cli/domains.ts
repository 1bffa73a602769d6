import { OWNER_API_PREFIX } from '../http/paths.ts';
import type { DomainView } from '../serve/custom-domains.ts';
import { failed, send, target } from './deploy.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform domains <add|list|verify|remove> [domain] [--to <base_url>] [--app <id>] [--json]

The custom domains of an app at a service you signed in to with platform login
(docs/production.md, "Custom domains"):
  add <domain>     Adds the domain, pending, and prints the token to serve at
                   http://<domain>/.well-known/platform-domain-verification.
  list             Lists the app's domains and whether each is verified.
  verify <domain>  Has the service fetch the token from the domain; once it matches, the app
                   answers on the domain.
  remove <domain>  Removes the domain; the app stops answering on it.

Options:
  --to <base_url>  The service (platform login); may be left out when signed in to one only.
  --app <id>       The app id (default: the id in .platform/app.json, else the folder's name).
  --json           Print the service's answer as JSON.
  -h, --help       Show this help.`;

const line = (one: DomainView) =>
  `${one.domain}  ${one.state}${one.state === 'pending' && one.lastCheck ? ` (last check: ${one.lastCheck})` : ''}`;

/** `platform domains add|list|verify|remove`. */
export const domainsCommand = defineCommand({
  name: 'domains',
  summary: "Add, list, verify and remove an app's custom domains at a service.",
  usage,
  options: {
    to: { type: 'string' },
    app: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  async run(parsed, io, usageError) {
    const [action, domain] = parsed.positionals;
    const needsDomain = action === 'add' || action === 'verify' || action === 'remove';
    if (action !== 'list' && !needsDomain) return usageError('say add, list, verify or remove');
    if (needsDomain && domain === undefined) return usageError(`name the domain to ${action}`);
    const label = `domains ${action}`;
    const where = await target(io, label, parsed.values, io.cwd);
    if (typeof where === 'number') return where;
    const path = `${OWNER_API_PREFIX}/${encodeURIComponent(where.appId)}/domains`;
    const one = `${path}/${encodeURIComponent(domain ?? '')}`;
    const answer =
      action === 'list'
        ? await send(where.base, path, { method: 'GET', token: where.token })
        : action === 'add'
          ? await send(where.base, path, {
              method: 'POST',
              token: where.token,
              body: JSON.stringify({ domain }),
              contentType: 'application/json',
            })
          : action === 'verify'
            ? await send(where.base, `${one}/verify`, { method: 'POST', token: where.token })
            : await send(where.base, one, { method: 'DELETE', token: where.token });
    if (!answer.ok) return failed(io, label, answer);
    if (parsed.values.json) {
      io.stdout(JSON.stringify(answer.body, null, 2));
      return exitCodes.ok;
    }
    if (action === 'list') {
      const { domains } = answer.body as { domains: DomainView[] };
      if (domains.length === 0) io.stdout(`${where.appId} has no custom domains.`);
      for (const each of domains) io.stdout(line(each));
      return exitCodes.ok;
    }
    if (action === 'remove') {
      io.stdout(`Removed ${domain} from ${where.appId}.`);
      return exitCodes.ok;
    }
    const view = (answer.body as { domain: DomainView }).domain;
    if (action === 'add') {
      io.stdout(
        `Added ${view.domain} to ${where.appId}, pending. Serve this as the whole body of ${view.verifyUrl}:\n${view.token}\nthen run: platform domains verify ${view.domain}`,
      );
      return exitCodes.ok;
    }
    io.stdout(`${view.domain} is verified: ${where.appId} answers on it.`);
    return exitCodes.ok;
  },
});
