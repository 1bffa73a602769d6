import { PlatformError } from '@platform/errors';
import type { Context } from 'hono';
import type { BrokerEnv } from './broker-env.ts';

/**
 * Checks that the member a change names as acting (`actingAs`, resolved to `accountId`) may be
 * named by this request. The dev token and the developer's cookie stand for the developer, who
 * names any member; the owner's own session in the console acts as that owner only, or else an
 * app's owner could act with an organisation administrator's authority. `PERMISSION_DENIED`
 * otherwise.
 *
 * @example
 * ```ts
 * const accountId = (await memberByEmail(await members.list(), body.actingAs)).accountId;
 * checkActingAs(c, accountId, body.actingAs);
 * ```
 */
export function checkActingAs(c: Context<BrokerEnv>, accountId: string, email: string): void {
  const own = c.get('consoleAccount');
  if (own === undefined || own === accountId) return;
  throw new PlatformError({
    code: 'PERMISSION_DENIED',
    message: `In the console you act as yourself; ${email} makes this change from their own session.`,
    details: { field: 'actingAs' },
  });
}
