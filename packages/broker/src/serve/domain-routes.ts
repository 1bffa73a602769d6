import type { Hono } from 'hono';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { domainsPath } from '../http/paths.ts';
import type { CustomDomains } from './custom-domains.ts';
import { domainNameOf } from './custom-domains.ts';
import type { OwnerAccess } from './owner-access.ts';

/**
 * The custom domains of the owner API on `{base_url}` (docs/production.md, "Custom domains"):
 * `GET` the app's domains, `POST { domain }` adds one pending with its verification token,
 * `POST …/{domain}/verify` checks the token at the domain, `DELETE …/{domain}` removes it. Each
 * needs a member's account credential with Edit on an existing app (its owner or editors), as
 * deploying does.
 */
export function mountDomainRoutes(
  app: Hono<BrokerEnv>,
  options: {
    readonly access: OwnerAccess;
    readonly domains: CustomDomains;
    readonly baseDomain: string;
  },
): void {
  const { access, domains } = options;
  const editor = async (c: Parameters<OwnerAccess['caller']>[0]) => {
    const { accountId, appId } = await access.existingApp(c);
    if (!(await access.authority.mayEdit(appId, accountId))) {
      throw access.denied(
        `Only the owner and the editors of "${appId}" may change its custom domains.`,
        appId,
      );
    }
    return { accountId, appId };
  };
  const domainOf = (value: string | undefined) => domainNameOf(value, options.baseDomain);

  app.get(domainsPath, async (c) => {
    const { appId } = await editor(c);
    return c.json({ domains: await domains.list(appId) });
  });
  app.post(domainsPath, async (c) => {
    const { accountId, appId } = await editor(c);
    const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json });
    const given =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>).domain
        : undefined;
    const domain = domainOf(typeof given === 'string' ? given : undefined);
    return c.json({ domain: await domains.add(appId, domain, accountId) }, 201);
  });
  app.post(`${domainsPath}/:domain/verify`, async (c) => {
    const { appId } = await editor(c);
    return c.json({ domain: await domains.verify(appId, domainOf(c.req.param('domain'))) });
  });
  app.delete(`${domainsPath}/:domain`, async (c) => {
    const { appId } = await editor(c);
    const domain = domainOf(c.req.param('domain'));
    await domains.remove(appId, domain);
    return c.json({ domain, removed: true });
  });
}
