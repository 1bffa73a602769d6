import { accountCredentialsStep, agentCredentialsStep } from '../auth/auth-schema.ts';
import {
  centralAuthStep,
  centralGrantsStep,
  centralHandoffsStep,
  handoffSignInTimeStep,
  signInAttemptsStep,
} from '../auth/central-auth-schema.ts';
import type { SchemaStep } from '../db/platform-schema.ts';
import { accountDeletionAppLeaseStep, accountDeletionsStep } from '../deletion/deletion-schema.ts';
import {
  appSecretsStep,
  customDomainsStep,
  deletedAppFilesErasedStep,
  deletedAppsStep,
  deploymentArchivesStep,
  deploymentsStep,
} from '../deploy/deployment-schema.ts';
import {
  eventDeliveryEnvironmentStep,
  integrationsLifecycleStep,
  integrationsStep,
  integrationsSyncHolderStep,
  oauthBrowserBindingStep,
  refusedCallsAuditStep,
} from '../integrations/integration-schema.ts';
import { onboardingStep } from '../onboarding/onboarding-schema.ts';
import {
  authorityStep,
  companyAssignmentStep,
  departuresStep,
  membershipsStep,
  setupLinksStep,
} from '../org/org-schema.ts';

/**
 * The central store's own schema steps (docs/organisations.md), numbered apart from the app
 * databases' platform schema: accounts, verifiers and email links, then the organisation.
 * Never edit or renumber a released step; append.
 */
export const centralSchema: readonly SchemaStep[] = [
  { version: 1, ...centralAuthStep },
  { version: 2, ...centralHandoffsStep },
  { version: 3, ...membershipsStep },
  { version: 4, ...authorityStep },
  { version: 5, ...integrationsStep },
  { version: 6, ...integrationsLifecycleStep },
  { version: 7, ...centralGrantsStep },
  { version: 8, ...accountDeletionsStep },
  { version: 9, ...agentCredentialsStep },
  { version: 10, ...onboardingStep },
  { version: 11, ...integrationsSyncHolderStep },
  { version: 12, ...oauthBrowserBindingStep },
  { version: 13, ...handoffSignInTimeStep },
  { version: 14, ...setupLinksStep },
  { version: 15, ...accountCredentialsStep },
  { version: 16, ...eventDeliveryEnvironmentStep },
  { version: 17, ...refusedCallsAuditStep },
  { version: 18, ...deploymentsStep },
  { version: 19, ...departuresStep },
  { version: 20, ...signInAttemptsStep },
  { version: 21, ...deletedAppsStep },
  { version: 22, ...customDomainsStep },
  { version: 23, ...companyAssignmentStep },
  { version: 24, ...deploymentArchivesStep },
  { version: 25, ...deletedAppFilesErasedStep },
  { version: 26, ...appSecretsStep },
  { version: 27, ...accountDeletionAppLeaseStep },
];
