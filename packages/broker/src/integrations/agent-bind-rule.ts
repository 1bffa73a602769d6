import { PlatformError } from '@platform/errors';

/**
 * Spec 5.4 for agents: an agent binds only as an exact-app owner agent (its credential made for
 * this app, its account the app's owner) and only into an `account: app` slot; a
 * `calling_user` slot is always bound by the person. The connection must already exist:
 * entering credential values is a person's action. Throws `PERMISSION_DENIED` naming the rule.
 */
export function checkAgentBind(
  account: 'app' | 'calling_user',
  slot: string,
  appId: string,
  owns: boolean,
): void {
  const denied = (message: string, rule: string) =>
    new PlatformError({ code: 'PERMISSION_DENIED', message, details: { rule } });
  if (account === 'calling_user') {
    throw denied(
      `The slot ${slot} acts for the signed-in person: agents cannot bind it; the person binds their own connection.`,
      'agent-calling-user',
    );
  }
  if (!owns) {
    throw denied(
      `Only an agent of ${appId}'s owner binds its connections (an exact-app owner agent).`,
      'agent-exact-app-owner',
    );
  }
}
