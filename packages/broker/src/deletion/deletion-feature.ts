import type { AuthService } from '../auth/auth-service.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Organisation } from '../org/org-feature.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { AccountDeletions } from './account-deletions.ts';
import { mountAccountRoutes } from './account-routes.ts';

/**
 * Account deletions (spec 3.5), recorded beside the accounts: this app's part of each, which
 * every feature's erasure carries out. It starts before sign-in, so that a part a stop
 * interrupted is finished before sign-in makes the owner's account again.
 */
export function deletionFeature(settings: {
  readonly clock: Clock;
  /** The ids of every app of the organisation, this one included. */
  readonly appIds: () => readonly string[];
}): BrokerFeature<'deletions', { outbox: Outbox }, AccountDeletions> {
  return {
    name: 'deletions',
    start: (base, { outbox }) =>
      new AccountDeletions({
        central: base.central,
        db: base.db,
        appId: base.appId,
        stateDir: base.stateDir,
        appIds: settings.appIds,
        outbox,
        clock: settings.clock,
        print: base.print,
        erasures: base.erasures,
      }),
    erasure: { keptByAppWipe: ['account_deletions', 'account_deletion_apps'] },
  };
}

/**
 * The account page once sign-in is up, and the loop that resumes unfinished deletions every
 * second. A deletion that takes effect makes sign-in forget the owner it knew.
 */
export const accountPageFeature: BrokerFeature<
  'accountPage',
  { auth: AuthService; deletions: AccountDeletions; org: Organisation | undefined },
  void
> = {
  name: 'accountPage',
  start: (base, { auth, deletions }) => {
    deletions.whenDeleted(() => auth.forgetOwner());
    base.onClose(deletions.start());
  },
  mount: {
    routes: (app, _none, { auth, deletions, org }) => mountAccountRoutes(app, auth, deletions, org),
  },
};
