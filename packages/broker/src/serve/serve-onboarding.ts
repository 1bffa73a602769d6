import { PlatformError } from '@platform/errors';
import type { Context, Hono } from 'hono';
import { AccountCredentials } from '../auth/account-credentials.ts';
import { AgentCredentials } from '../auth/agent-credentials.ts';
import type { Database } from '../db/database.ts';
import { readBearer } from '../http/bearer.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Clock } from '../kernel/clock.ts';
import { Onboarding } from '../onboarding/onboarding.ts';
import type { OnboardingProject } from '../onboarding/onboarding-project.ts';
import type { OnboardingRequests } from '../onboarding/onboarding-requests.ts';
import { mountOnboardingRoutes } from '../onboarding/onboarding-routes.ts';
import { roleOf } from '../org/memberships.ts';
import type { CentralSignIn } from './central-sign-in.ts';
import { appUrlOf } from './deployed-apps.ts';
import { checkedAppId } from './owner-access.ts';

/** What onboarding on `platform serve` needs. */
export interface ServeOnboardingOptions {
  readonly central: Database;
  readonly clock: Clock;
  readonly signIn: CentralSignIn;
  readonly baseUrl: string;
  readonly baseDomain: string;
  /** The organisation's name: the company an onboarded person joins. */
  readonly organisation: string;
  readonly print: (line: string) => void;
}

const taken = (appId: string) =>
  new PlatformError({
    code: 'APP_ID_TAKEN',
    message: `The app id "${appId}" is another person's app or project on this service; start onboarding with another app id.`,
    details: { appId },
  });

/**
 * The project of an onboarding on `platform serve` (docs/production.md, "Onboarding"): an app
 * id the service does not have yet. A malformed id is `INVALID_INPUT`; an id of an app (deployed
 * or held by a finished onboarding) owned by another account, or held by another address's live
 * request, is `APP_ID_TAKEN`. The agent's finish records the person as the owner of the app to
 * be, in its transaction, so the person (or whoever they let edit it) deploys it as its owner;
 * the launch page opens `{app_url}/` once the app has an active revision. An existing account
 * that is no member joins the organisation after approving, as a new one does.
 */
export function deployedProject(
  options: Pick<ServeOnboardingOptions, 'central' | 'baseUrl' | 'baseDomain' | 'organisation'> & {
    readonly requests: () => OnboardingRequests;
  },
): OnboardingProject {
  const { central } = options;
  return {
    appId: (asked) => checkedAppId(asked, options.baseDomain),
    // Only a member may deploy: an existing account outside the organisation (one whose earlier
    // onboarding lapsed, say) accepts its invitation after approving.
    inCompany: async (accountId, tx) => (await roleOf(tx, accountId)) !== undefined,
    async requireFree(appId, email) {
      const { rows } = await central.query<{ email: string | null }>(
        `SELECT o.email FROM platform.apps a
           LEFT JOIN platform.accounts o ON o.id = a.owner_account_id
          WHERE a.app_id = $1`,
        [appId],
      );
      const app = rows[0];
      // An app of this very person is theirs to bring an agent to (an approval request).
      if (app !== undefined && app.email?.toLowerCase() !== email.toLowerCase()) {
        throw taken(appId);
      }
      if (await options.requests().heldByAnother(appId, email)) throw taken(appId);
    },
    async claim(request, tx) {
      const { rows } = await tx.query<{ owner: string | null }>(
        `INSERT INTO platform.apps (app_id, owner_account_id) VALUES ($1, $2)
         ON CONFLICT (app_id) DO UPDATE
           SET owner_account_id = COALESCE(platform.apps.owner_account_id, EXCLUDED.owner_account_id)
         RETURNING owner_account_id::text AS owner`,
        [request.appId, request.accountId],
      );
      if (rows[0]?.owner !== request.accountId) throw taken(request.appId);
    },
    // The ownership recorded by the claim is the whole hand-over: a deployed app reads its
    // owner from the central store, and its owner may open it.
    handOver: async () => undefined,
    async openAt(request) {
      const { rows } = await central.query(
        'SELECT 1 FROM platform.active_deployments WHERE app_id = $1',
        [request.appId],
      );
      return rows.length === 0 ? undefined : `${appUrlOf(options.baseUrl, request.appId)}/`;
    },
    organisation: options.organisation,
  };
}

/**
 * Mounts onboarding (spec 5.2) on `{base_url}` of `platform serve`: the owner API
 * `start_onboarding` sends, the email link's pages and the owner launch page, on the central
 * sign-in. The owner API needs a caller the service knows: a live agent credential or account
 * credential of a member (`AUTH_REQUIRED` otherwise); a self-hosted service does not let anyone
 * make accounts and send mail.
 */
export function mountServeOnboarding(app: Hono<BrokerEnv>, options: ServeOnboardingOptions): void {
  const { central, clock, signIn } = options;
  const agents = new AgentCredentials(central, clock);
  const accounts = new AccountCredentials(central, clock);
  const onboarding: Onboarding = new Onboarding({
    auth: signIn.auth,
    accounts: central,
    outbox: signIn.outbox,
    clock,
    print: options.print,
    project: deployedProject({ ...options, requests: () => onboarding.requests }),
  });
  const admit = async (c: Context<BrokerEnv>) => {
    const presented = readBearer(c.req.header('authorization'));
    const holder =
      typeof presented === 'string'
        ? ((await agents.verify(presented)) ?? (await accounts.verify(presented)))
        : undefined;
    // Whoever holds it must still be a member: leaving the organisation ends what they may start.
    if (holder !== undefined && (await roleOf(central, holder.accountId)) !== undefined) return;
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message:
        'Onboarding on this service needs a live agent credential or a member’s account credential (platform login --to <base_url>).',
    });
  };
  mountOnboardingRoutes(app, signIn.auth, onboarding, admit);
}
