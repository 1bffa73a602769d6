import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows, tableExists } from '../feature/erase-rows.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { type CentralAuthority, centralAuthority } from './authority.ts';
import { mountAuthorityRoutes } from './authority-routes.ts';
import { Memberships } from './memberships.ts';
import { orgSection } from './org-section.ts';

/** The organisation of an app served with a central store: its authority facts and members. */
export interface Organisation {
  readonly authority: CentralAuthority;
  readonly members: Memberships;
  /** This app's `{app_url}`, whose account page invitations link to. */
  readonly appUrl: string;
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
}): BrokerFeature<'org', { outbox: Outbox }, Organisation | undefined> {
  return {
    name: 'org',
    start: async (base) => {
      if (!base.organisation) return undefined;
      const authority = centralAuthority(base.central);
      await authority.register([base.appId]);
      return { authority, members: new Memberships(base.central, base.clock), appUrl: base.url };
    },
    dashboard: [orgSection],
    mount: {
      routes: (app, org, { outbox }, { appId }) => {
        if (org) {
          mountAuthorityRoutes(app, {
            appId,
            ...org,
            apps: settings.apps,
            visibility: settings.visibility,
            outbox,
          });
        }
      },
    },
    erasure: {
      person: async (tx, { accountId }) => {
        for (const table of ['app_audience_accounts', 'app_editors', 'platform_admins']) {
          await eraseRows(tx, table, 'account_id = $1', [accountId]);
        }
        // The address signing up again is a stranger: rejoining needs a new invitation.
        for (const table of ['memberships', 'personal_companies']) {
          await eraseRows(tx, table, 'account_id = $1', [accountId]);
        }
        if (await tableExists(tx, 'invitations')) {
          await tx.query(
            'UPDATE platform.invitations SET invited_by = NULL WHERE invited_by = $1',
            [accountId],
          );
        }
      },
      // A broker running alone keeps its organisation's members beside the app's rows.
      keptByAppWipe: ['memberships', 'personal_companies', 'invitations'],
      organisation: async (tx) => {
        const tables = ['app_audience_accounts', 'app_audiences', 'app_editors', 'apps'];
        const people = ['platform_admins', 'memberships', 'personal_companies', 'invitations'];
        for (const table of [...tables, ...people]) await eraseRows(tx, table);
      },
    },
  };
}
