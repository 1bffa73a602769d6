import type { AuthService } from '../auth/auth-service.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { Onboarding } from './onboarding.ts';
import { localProject } from './onboarding-project.ts';
import type { OnboardingRequest } from './onboarding-requests.ts';
import { mountOnboardingRoutes } from './onboarding-routes.ts';

/**
 * Agent-created accounts with this app as the project (spec 5.2, {@link localProject}).
 * `handOver` is what a finished request does to the app (the organisation's rule), given the
 * services started before.
 */
export function onboardingFeature<Needs extends object>(settings: {
  readonly clock: Clock;
  readonly handOver: (
    needs: Needs & { auth: AuthService },
  ) => (request: OnboardingRequest) => Promise<void>;
}): BrokerFeature<'onboarding', Needs & { auth: AuthService; outbox: Outbox }, Onboarding> {
  return {
    name: 'onboarding',
    start: (base, needs) =>
      new Onboarding({
        auth: needs.auth,
        accounts: base.central,
        outbox: needs.outbox,
        clock: settings.clock,
        print: base.print,
        project: localProject(
          needs.auth.appId,
          (http) => needs.auth.publicOrigin(http),
          settings.handOver(needs),
        ),
      }),
    erasure: {
      // The requests that onboarded the person, and those naming their address.
      person: (tx, { accountId, email }) =>
        eraseRows(tx, 'onboarding_requests', 'account_id = $1 OR lower(email) = $2', [
          accountId,
          email,
        ]),
      organisation: async (tx) => {
        await eraseRows(tx, 'onboarding_requests');
        await eraseRows(tx, 'organisation_profile');
      },
    },
    mount: { routes: (app, onboarding, { auth }) => mountOnboardingRoutes(app, auth, onboarding) },
  };
}
