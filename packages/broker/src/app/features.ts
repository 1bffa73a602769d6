import { aiFeature } from '../ai/ai-feature.ts';
import { authFeature } from '../auth/auth-feature.ts';
import { backupsFeature } from '../backups/backups-feature.ts';
import { inspectionHoldFeature } from '../backups/inspection-hold.ts';
import { consoleFeature } from '../console/console-feature.ts';
import { dataFeature } from '../data/data-feature.ts';
import { accountPageFeature, deletionFeature } from '../deletion/deletion-feature.ts';
import { defineRegistry, type ServicesOf } from '../feature/compose.ts';
import { filesFeature } from '../files/files-feature.ts';
import { inboundMailFeature } from '../inbound-mail/inbound-feature.ts';
import { integrationsFeature } from '../integrations/integrations-feature.ts';
import { jobsFeature } from '../jobs/jobs-feature.ts';
import { onboardingFeature } from '../onboarding/onboarding-feature.ts';
import { orgFeature } from '../org/org-feature.ts';
import { captureMail } from '../outbox/mail-delivery.ts';
import { outboxFeatureWith } from '../outbox/outbox-feature.ts';
import { pushFeature } from '../push/push-feature.ts';
import { realtimeFeature } from '../realtime/realtime-feature.ts';
import { searchFeature } from '../search/search-feature.ts';
import type { ResolvedBrokerOptions } from './broker-options.ts';
import { arrivalsFeature, handOver, signInRules } from './people-policy.ts';
import { platformSchema } from './platform-schema.ts';

/**
 * The broker's features, in the order they start: each line one feature folder with its
 * settings. A feature sees the services of the lines above it (the typechecker refuses a line
 * placed above what it needs); its routes mount in this order; account deletion runs the
 * features' erasures in this order. Adding a feature is a folder and a line here
 * (CONTRIBUTING.md, "Adding a feature to the broker").
 *
 * @param o the resolved options of the broker
 * @param url `{app_url}`: the app's own address, when the organisation lists no apps
 */
export function brokerFeatures(o: ResolvedBrokerOptions, url: string) {
  return defineRegistry([
    // First: its request lines are recorded from the edge, around every later route.
    consoleFeature,
    dataFeature,
    filesFeature({ clock: o.jobs?.clock, storage: o.fileStorage }),
    // Before the background work and mail it holds in a copy restored from a backup
    // (docs/backups.md).
    inspectionHoldFeature,
    outboxFeatureWith(o.mail ?? captureMail),
    aiFeature(o.ai),
    orgFeature({ apps: () => orgApps(o, url), visibility: o.auth?.visibility ?? 'private' }),
    deletionFeature({ clock: o.clock, appIds: o.peerAppIds }),
    arrivalsFeature,
    authFeature({ options: o.auth ?? {}, rules: signInRules(o.appId) }),
    onboardingFeature({ clock: o.clock, handOver: handOver(o.appId) }),
    accountPageFeature,
    inboundMailFeature({
      functionName: o.inboundFunction,
      emailAliases: o.declared.emailAliases,
    }),
    jobsFeature(o.jobs),
    searchFeature(o.searches),
    pushFeature({ pushServiceHosts: o.pushServiceHosts }),
    integrationsFeature(o.integrations),
    backupsFeature({ platformSchema, clock: o.clock, newApps: o.newApps }),
    realtimeFeature(o.realtime ?? { channels: {}, tables: [] }),
  ]);
}

/** The services of a broker's features, by name. */
export type BrokerFeatureServices = ServicesOf<ReturnType<typeof brokerFeatures>>;

/** The organisation's apps with their addresses; the app alone when it names none. */
function orgApps(o: ResolvedBrokerOptions, url: string) {
  const peers = o.auth?.peers?.() ?? [];
  return peers.length > 0 ? peers : [{ appId: o.appId, url }];
}
