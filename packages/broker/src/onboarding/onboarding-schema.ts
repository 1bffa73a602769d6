import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * Agent-created accounts (spec 5.2), beside the accounts: each retained project request with
 * the hashes of its one-time email link and of the agent's claim secret, and the organisation's
 * company profile that onboarding sets up (one row).
 */
export const onboardingStep: SchemaChange = {
  name: 'onboarding',
  sql: `
CREATE TABLE platform.onboarding_requests (
  id text PRIMARY KEY,
  app_id text NOT NULL,
  email text NOT NULL,
  account_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('new', 'existing')),
  state text NOT NULL
    CHECK (state IN ('organisation_setup_required', 'approval_required', 'ready', 'finished')),
  link_hash text NOT NULL UNIQUE,
  link_used_at timestamptz,
  claim_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  company_at timestamptz,
  finished_at timestamptz,
  credential_id text
);
CREATE TABLE platform.organisation_profile (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  name text NOT NULL,
  set_up_by uuid NOT NULL,
  set_up_at timestamptz NOT NULL
);
`,
};
