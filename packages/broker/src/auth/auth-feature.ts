import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { accessSection } from './access-section.ts';
import { type AuthOptions, resolveAuthOptions } from './auth-options.ts';
import { AuthService } from './auth-service.ts';
import { mountAuth } from './mount-auth.ts';

/**
 * Who reviews requests, what an agent's account may do and where the app's owner is recorded, as
 * the organisation decides.
 */
export type SignInRules = Pick<AuthOptions, 'isReviewer' | 'agentAuthority' | 'ownerRecord'>;

/**
 * Sign-in (docs/auth.md): accounts, sessions, grants, app access tokens and agent credentials,
 * the admission check in front of every later route, and the sign-in pages. `rules` gives the
 * organisation's part from the services started before sign-in; `auth` is the service being
 * built, for rules that ask it back.
 */
export function authFeature<Needs extends object>(settings: {
  readonly options: AuthOptions;
  readonly rules?: (needs: Needs, auth: () => AuthService) => SignInRules;
}): BrokerFeature<'auth', Needs & { outbox: Outbox }, AuthService> {
  return {
    name: 'auth',
    start: async (base, needs) => {
      let service: AuthService | undefined;
      const self = () => {
        if (!service) throw new Error('Sign-in is still starting.');
        return service;
      };
      const options = resolveAuthOptions(base.appDir, {
        print: base.print,
        appUrl: base.url,
        ...settings.rules?.(needs, self),
        ...settings.options,
        appId: base.appId,
      });
      service = await AuthService.create(base.db, needs.outbox, options, base.central);
      return service;
    },
    mount: { admission: (app, auth, _needs, { admission }) => mountAuth(app, auth, { admission }) },
    dashboard: [accessSection],
    erasure: {
      person: async (tx, { accountId, email, requestedAt }) => {
        await eraseRows(tx, 'handoffs', 'account_id = $1', [accountId]);
        await eraseRows(tx, 'agent_credentials', 'account_id = $1', [accountId]);
        await eraseRows(tx, 'account_credential_requests', 'decided_by = $1', [accountId]);
        // Links and grants to the address made before the deletion was asked for: a new account
        // with that address keeps its own.
        await eraseRows(tx, 'email_links', 'lower(email) = $1 AND created_at <= $2', [
          email,
          requestedAt,
        ]);
        await eraseRows(tx, 'app_grants', 'lower(email) = $1 AND granted_at <= $2', [
          email,
          requestedAt,
        ]);
      },
      organisation: async (tx) => {
        const tables = ['email_links', 'app_grants', 'handoffs', 'agent_credentials'];
        for (const table of [...tables, 'account_credential_requests']) {
          await eraseRows(tx, table);
        }
      },
      appPerson: async (tx, { accountId }) => {
        await tx.query('DELETE FROM platform.sessions WHERE account_id = $1', [accountId]);
      },
      keptByAppWipe: ['auth_keys', 'accounts', 'email_links', 'app_grants', 'handoffs'],
    },
  };
}
