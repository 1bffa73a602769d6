import { join } from 'node:path';
import type { SignInRules } from '../auth/auth-feature.ts';
import type { AuthService } from '../auth/auth-service.ts';
import { moveAccountsToCentral, moveGrantsToCentral } from '../auth/move-accounts.ts';
import { applyMigrations } from '../db/migrations.ts';
import type { AccountDeletions } from '../deletion/account-deletions.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { OnboardingRequest } from '../onboarding/onboarding-requests.ts';
import type { Organisation } from '../org/org-feature.ts';

// How people, accounts and ownership of one app follow its organisation: the rules that join
// sign-in, the organisation's facts, account deletion and onboarding, which none of them owns.

/**
 * Before sign-in starts: accounts and grants the app kept in its own database move into the
 * organisation's central store, and this app's part of a deletion that a stop interrupted is
 * finished, so that sign-in does not make the owner's account again in a wiped app.
 */
export const arrivalsFeature: BrokerFeature<'arrivals', { deletions: AccountDeletions }, void> = {
  name: 'arrivals',
  start: async (base, { deletions }) => {
    if (base.organisation) {
      const move = await moveAccountsToCentral(base.db, base.central);
      if (move.moved > 0) {
        base.print(
          `Moved ${move.moved} account(s) of this app into the organisation's central store.`,
        );
      }
      for (const email of move.clashes) {
        base.print(
          `WARN  ${email} already had an account in the central store; this app's rows owned by its old account id keep that id.`,
        );
      }
      const grants = await moveGrantsToCentral(base.db, base.central);
      if (grants > 0) {
        base.print(
          `Moved ${grants} access grant(s) of this app into the organisation's central store.`,
        );
      }
    }
    if (await deletions.finishOwnPart()) {
      await applyMigrations(base.db, join(base.appDir, 'migrations'));
      base.print("The app was deleted with its owner's account; it begins anew from its folder.");
    }
  },
};

/**
 * Sign-in's rules in an organisation: the app's owner is the one its authority facts record
 * (the configured owner only until one is recorded), so token approval, reveal links, the
 * control plane and what an app access token acts as follow an onboarding's hand-over or
 * `platform app authority set owner` at once; platform administrators review requests; an
 * agent's account may edit the app when the facts say so, and owns it when it is that owner.
 * Alone, the defaults of sign-in hold.
 */
export function signInRules(
  appId: string,
): (needs: { org: Organisation | undefined }, auth: () => AuthService) => SignInRules {
  return ({ org }, auth) => {
    if (!org) return {};
    const { authority } = org;
    return {
      isReviewer: (accountId) => authority.isPlatformAdministrator(accountId),
      ownerRecord: {
        current: () => authority.ownerOf(appId),
        set: (accountId) => authority.setOwner(appId, accountId),
        onChange: (listener) =>
          authority.onOwnerChange((changed) => {
            if (changed === appId) listener();
          }),
      },
      agentAuthority: {
        mayEdit: async (accountId) =>
          (await auth().isOwner(accountId)) || authority.mayEdit(appId, accountId),
        owns: (accountId) => auth().isOwner(accountId),
      },
    };
  };
}

/**
 * What a finished onboarding does: the person becomes the app's owner in the organisation's
 * facts and may open it (a grant on a private app).
 */
export function handOver(
  appId: string,
): (needs: {
  org: Organisation | undefined;
  auth: AuthService;
}) => (request: OnboardingRequest) => Promise<void> {
  return ({ org, auth }) =>
    async (request) => {
      await org?.authority.setOwner(appId, request.accountId);
      await auth.grantAccess(request.email);
    };
}
