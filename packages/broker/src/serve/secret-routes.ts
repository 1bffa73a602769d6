import type { Context, Hono } from 'hono';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { secretsPath } from '../http/paths.ts';
import type { AppSecrets } from './app-secrets.ts';
import { type OwnerAccess, ownsOrAdministers } from './owner-access.ts';

/**
 * The secrets of a deployed app under the owner API on `{base_url}` (docs/production.md,
 * "Secrets"): `GET` the names with when each was set, `PUT …/{name} { value }` sets one,
 * `DELETE …/{name}` removes one. No answer holds a value. Only the app's owner and the
 * organisation's administrators, each with a member's account credential (`platform login`);
 * app access tokens and agents are refused, as the owner API's control plane refuses them.
 */
export function mountSecretRoutes(
  app: Hono<BrokerEnv>,
  options: { readonly access: OwnerAccess; readonly secrets: AppSecrets },
): void {
  const { access, secrets } = options;
  const keeper = async (c: Context<BrokerEnv>) => {
    const { accountId, appId } = await access.existingApp(c);
    if (!(await ownsOrAdministers(access.central, appId, accountId))) {
      throw access.denied(
        `Only the owner of "${appId}" and the organisation's administrators may manage its secrets.`,
        appId,
      );
    }
    return appId;
  };

  app.get(secretsPath, async (c) => {
    const appId = await keeper(c);
    return c.json({ secrets: await secrets.list(appId) });
  });
  app.put(`${secretsPath}/:name`, async (c) => {
    const appId = await keeper(c);
    const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json });
    const value =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>).value
        : undefined;
    return c.json({ secret: await secrets.set(appId, c.req.param('name'), value) });
  });
  app.delete(`${secretsPath}/:name`, async (c) => {
    const appId = await keeper(c);
    const name = c.req.param('name');
    await secrets.remove(appId, name);
    return c.json({ name, removed: true });
  });
}
