import {
  accountCredentialsStep,
  agentCredentialsStep,
  appTokenRevealsStep,
  authTablesStep,
  credentialRequestKindsStep,
  sessionSignInTimeStep,
} from '../auth/auth-schema.ts';
import { appSessionsApartStep, signInAttemptsStep } from '../auth/central-auth-schema.ts';
import { inspectionHoldStep } from '../backups/inspection-hold.ts';
import { bootstrapStep } from '../db/bootstrap.ts';
import { claimSettingsStep } from '../db/claim-settings.ts';
import type { SchemaStep } from '../db/platform-schema.ts';
import { accountDeletionAppLeaseStep, accountDeletionsStep } from '../deletion/deletion-schema.ts';
import { fileHoldsStep, filePendingStep, fileTablesStep } from '../files/file-schema.ts';
import { inboundAttemptsStep, inboundMailTableStep } from '../inbound-mail/inbound-schema.ts';
import { cronStateStep } from '../jobs/cron/cron-schema.ts';
import { jobActiveIndexStep, jobGrantUserStep, jobTablesStep } from '../jobs/job-schema.ts';
import { onboardingStep } from '../onboarding/onboarding-schema.ts';
import { companyAssignmentStep, departuresStep, membershipsStep } from '../org/org-schema.ts';
import { outboxTableStep } from '../outbox/outbox-schema.ts';
import { pushTablesStep } from '../push/push-schema.ts';
import { realtimeTablesStep } from '../realtime/realtime-schema.ts';

/**
 * The broker's own schema, in the order its steps run, each with its version for good. Each
 * feature writes its changes in its own folder; this list is the one place that orders and
 * numbers them (the database layer cannot import features). To change a platform table, add a
 * new change in the feature's folder and append it here with the next version; never edit or
 * renumber a released step (databases already recorded it). Steps 1 to 6 are the tables that
 * existed before the schema had versions: idempotent, so they adopt an older data directory.
 *
 * @example
 * ```ts
 * const { db } = await openDatabase({ appDir, platformSchema });
 * ```
 */
export const platformSchema: readonly SchemaStep[] = [
  { version: 1, ...bootstrapStep },
  { version: 2, ...fileTablesStep },
  { version: 3, ...outboxTableStep },
  { version: 4, ...authTablesStep },
  { version: 5, ...jobTablesStep },
  { version: 6, ...cronStateStep },
  { version: 7, ...inboundMailTableStep },
  { version: 8, ...pushTablesStep },
  { version: 9, ...appSessionsApartStep },
  // A broker running alone keeps its accounts, so also its organisation's members.
  { version: 10, ...membershipsStep },
  { version: 11, ...appTokenRevealsStep },
  // Deletions are recorded beside the accounts, so also here for a broker running alone.
  { version: 12, ...accountDeletionsStep },
  { version: 13, ...agentCredentialsStep },
  { version: 14, ...credentialRequestKindsStep },
  { version: 15, ...onboardingStep },
  { version: 16, ...claimSettingsStep },
  { version: 17, ...jobActiveIndexStep },
  { version: 18, ...sessionSignInTimeStep },
  { version: 19, ...inboundAttemptsStep },
  // A broker started without a central store keeps the accounts' side here.
  { version: 20, ...accountCredentialsStep },
  { version: 21, ...departuresStep },
  { version: 22, ...filePendingStep },
  { version: 23, ...jobGrantUserStep },
  // Counted beside the accounts, so here for a broker running alone.
  { version: 24, ...signInAttemptsStep },
  { version: 25, ...fileHoldsStep },
  { version: 26, ...realtimeTablesStep },
  { version: 27, ...companyAssignmentStep },
  { version: 28, ...accountDeletionAppLeaseStep },
  { version: 29, ...inspectionHoldStep },
];
