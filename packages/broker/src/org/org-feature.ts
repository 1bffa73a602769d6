import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import { type CentralAuthority, centralAuthority } from './authority.ts';
import { mountAuthorityRoutes } from './authority-routes.ts';
import { Memberships } from './memberships.ts';
import { orgSection } from './org-section.ts';

/** The organisation of an app served with a central store: its authority facts and members. */
export interface Organisation {
  readonly authority: CentralAuthority;
  readonly members: Memberships;
}

/** An app of the organisation with its `{app_url}`. */
export interface OrganisationApp {
  readonly appId: string;
  readonly url: string;
}

/**
 * The organisation's authority facts and members (docs/organisations.md), when the broker
 * serves with an organisation's central store; `undefined` for a broker running alone. The app
 * registers itself at start. `apps` lists the organisation's apps, this one included.
 */
export function orgFeature(settings: {
  readonly apps: () => readonly OrganisationApp[];
  /** The app's visibility: who may open it, which `app authority` states beside the audiences. */
  readonly visibility: 'public' | 'private';
}): BrokerFeature<'org', object, Organisation | undefined> {
  return {
    name: 'org',
    start: async (base) => {
      if (!base.organisation) return undefined;
      const authority = centralAuthority(base.central);
      await authority.register([base.appId]);
      return { authority, members: new Memberships(base.central) };
    },
    dashboard: [orgSection],
    mount: {
      routes: (app, org, _needs, { appId }) => {
        if (org) {
          mountAuthorityRoutes(app, {
            appId,
            ...org,
            apps: settings.apps,
            visibility: settings.visibility,
          });
        }
      },
    },
    erasure: {
      person: async (tx, { accountId }) => {
        for (const table of ['app_audience_accounts', 'app_editors', 'platform_admins']) {
          await eraseRows(tx, table, 'account_id = $1', [accountId]);
        }
        // Rejoining the organisation needs a new invitation (the departure that `depart` keeps).
        await eraseRows(tx, 'memberships', 'account_id = $1', [accountId]);
      },
      // A broker running alone keeps its organisation's members beside the app's rows.
      keptByAppWipe: ['memberships', 'departures'],
      organisation: async (tx) => {
        const tables = ['app_audience_accounts', 'app_audiences', 'app_editors', 'apps'];
        for (const table of [...tables, 'platform_admins', 'memberships', 'departures']) {
          await eraseRows(tx, table);
        }
      },
    },
  };
}
