import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * Connections, bindings, one-time connect links, event deliveries (no payloads) and the audit
 * of integration calls, in the
 * organisation's central store (docs/integrations.md). Credential values are kept only sealed
 * (`credential-cipher.ts`), with a key that lives outside this database. The audit keeps no
 * input, output or credential, and outlives the connection it names.
 */
export const integrationsStep: SchemaChange = {
  name: 'integrations',
  sql: `
CREATE TABLE platform.connections (
  id text PRIMARY KEY,
  integration text NOT NULL,
  provider_app_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('personal', 'organisation')),
  owner_account_id uuid,
  created_by uuid NOT NULL,
  condition text NOT NULL DEFAULT 'active' CHECK (condition IN ('active', 'reconnect_required')),
  credentials text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((kind = 'personal') = (owner_account_id IS NOT NULL))
);
CREATE TABLE platform.bindings (
  id text PRIMARY KEY,
  consumer_app_id text NOT NULL,
  slot text NOT NULL,
  account text NOT NULL CHECK (account IN ('app', 'calling_user')),
  person_account_id uuid,
  connection_id text NOT NULL REFERENCES platform.connections (id) ON DELETE CASCADE,
  capabilities text[] NOT NULL,
  created_by uuid NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL,
  CHECK ((account = 'calling_user') = (person_account_id IS NOT NULL))
);
CREATE UNIQUE INDEX bindings_app_slot ON platform.bindings (consumer_app_id, slot)
  WHERE account = 'app' AND revoked_at IS NULL;
CREATE UNIQUE INDEX bindings_person_slot
  ON platform.bindings (consumer_app_id, slot, person_account_id)
  WHERE account = 'calling_user' AND revoked_at IS NULL;
CREATE INDEX bindings_connection ON platform.bindings (connection_id);
CREATE TABLE platform.connect_links (
  token_hash text PRIMARY KEY,
  provider_app_id text NOT NULL,
  integration text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('personal', 'organisation')),
  account_id uuid NOT NULL,
  connection_id text REFERENCES platform.connections (id) ON DELETE CASCADE,
  bind_app_id text,
  bind_slot text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE TABLE platform.integration_calls (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  integration text NOT NULL,
  provider_app_id text NOT NULL,
  consumer_app_id text NOT NULL,
  slot text NOT NULL,
  connection_id text,
  operation text NOT NULL,
  environment text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('fake', 'live')),
  result text NOT NULL,
  duration_ms integer NOT NULL
);
CREATE TABLE platform.integration_event_deliveries (
  id text PRIMARY KEY,
  consumer_app_id text NOT NULL,
  slot text NOT NULL,
  binding_id text,
  event_id text NOT NULL,
  type text NOT NULL,
  state text NOT NULL CHECK (state IN ('delivered', 'failed')),
  attempts integer NOT NULL,
  last_error text,
  created_at timestamptz NOT NULL,
  delivered_at timestamptz
);
CREATE INDEX integration_event_deliveries_consumer
  ON platform.integration_event_deliveries (consumer_app_id, created_at DESC);
CREATE INDEX integration_calls_consumer ON platform.integration_calls (consumer_app_id, at DESC);
CREATE INDEX integration_calls_provider ON platform.integration_calls (provider_app_id, at DESC);
`,
};

/**
 * OAuth, sync and production events: a connection's sealed OAuth tokens and when the access
 * token expires; the leases that keep one refresh and one sync per connection at a time across
 * broker processes; the pending OAuth sign-ins (the state's SHA-256, the PKCE verifier and the
 * entered values sealed); and event deliveries that wait for their next attempt with their
 * payload, which is dropped once delivered. An emitted event id is recorded once per binding.
 */
export const integrationsLifecycleStep: SchemaChange = {
  name: 'integrations-lifecycle',
  sql: `
ALTER TABLE platform.connections
  ADD COLUMN oauth_tokens text,
  ADD COLUMN token_expires_at timestamptz,
  ADD COLUMN refresh_lease_until timestamptz,
  ADD COLUMN sync_lease_until timestamptz,
  ADD COLUMN last_sync_at timestamptz;
CREATE TABLE platform.oauth_states (
  state_hash text PRIMARY KEY,
  provider_app_id text NOT NULL,
  integration text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('personal', 'organisation')),
  account_id uuid NOT NULL,
  connection_id text NOT NULL,
  replacing boolean NOT NULL,
  bind_app_id text,
  bind_slot text,
  sealed text NOT NULL,
  expires_at timestamptz NOT NULL
);
ALTER TABLE platform.integration_event_deliveries
  DROP CONSTRAINT integration_event_deliveries_state_check,
  ADD CONSTRAINT integration_event_deliveries_state_check
    CHECK (state IN ('pending', 'delivered', 'failed')),
  ADD COLUMN source text NOT NULL DEFAULT 'injected' CHECK (source IN ('injected', 'emitted')),
  ADD COLUMN payload jsonb,
  ADD COLUMN next_attempt_at timestamptz,
  ADD COLUMN lease_until timestamptz;
CREATE UNIQUE INDEX integration_event_deliveries_once
  ON platform.integration_event_deliveries (binding_id, event_id) WHERE source = 'emitted';
CREATE INDEX integration_event_deliveries_due
  ON platform.integration_event_deliveries (next_attempt_at) WHERE state = 'pending';
`,
};

/**
 * Who holds a connection's running sync (`{ host, pid, bootedAt, scheduledAt }`): a broker that
 * starts takes over the lease of a holder on its machine that is gone (killed, or from before a
 * reboot) instead of waiting out the lease, and runs the occurrence it interrupted again.
 */
export const integrationsSyncHolderStep: SchemaChange = {
  name: 'integrations-sync-holder',
  sql: `ALTER TABLE platform.connections ADD COLUMN sync_lease_holder jsonb;`,
};

/**
 * A pending OAuth sign-in is bound to the browser that submitted the connect page: the SHA-256
 * of the secret in that browser's callback cookie. Sign-ins pending before this step have none
 * and can no longer be completed (they expire within ten minutes anyway).
 */
export const oauthBrowserBindingStep: SchemaChange = {
  name: 'oauth-browser-binding',
  sql: `
ALTER TABLE platform.oauth_states ADD COLUMN IF NOT EXISTS browser_hash text;
`,
};

/**
 * Which environment recorded each event delivery: a broker attempts only its own environment's,
 * so a production delivery still pending when the same folders start `platform dev` waits for
 * production (spec 6.1.6). Deliveries recorded before this step were emitted in production
 * (development delivers nothing emitted) or injected in development.
 */
export const eventDeliveryEnvironmentStep: SchemaChange = {
  name: 'integration-event-environment',
  sql: `
ALTER TABLE platform.integration_event_deliveries
  ADD COLUMN environment text NOT NULL DEFAULT 'production'
    CHECK (environment IN ('development', 'production'));
UPDATE platform.integration_event_deliveries SET environment = 'development'
  WHERE source = 'injected';
DROP INDEX platform.integration_event_deliveries_due;
CREATE INDEX integration_event_deliveries_due
  ON platform.integration_event_deliveries (environment, next_attempt_at) WHERE state = 'pending';
`,
};

/**
 * A call refused before it reached a provider is audited too (spec 6.3): one refused because its
 * slot is not declared names no integration, one whose integration nobody publishes no provider.
 */
export const refusedCallsAuditStep: SchemaChange = {
  name: 'integration-refused-calls',
  sql: `
ALTER TABLE platform.integration_calls
  ALTER COLUMN integration DROP NOT NULL,
  ALTER COLUMN provider_app_id DROP NOT NULL;
`,
};
