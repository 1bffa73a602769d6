import type { SchemaChange } from '../db/platform-schema.ts';

/** The accounts table: identities and their password verifiers (the central store's). */
export const accountsTableSql = `
CREATE TABLE IF NOT EXISTS platform.accounts (
  id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE,
  display_name text,
  state text NOT NULL CHECK (state IN ('unconfirmed', 'confirmed', 'paused')),
  confirm_deadline timestamptz,
  password_verifier text,
  created_at timestamptz NOT NULL
);
`;

/** Pending and used email links (the central store's). */
export const emailLinksTableSql = `
CREATE TABLE IF NOT EXISTS platform.email_links (
  id text PRIMARY KEY,
  app_id text NOT NULL,
  email text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('sign-in', 'confirm')),
  token_hash text NOT NULL UNIQUE,
  claim_hash text NOT NULL,
  return_to text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  approved_at timestamptz,
  approved_account uuid,
  claimed_at timestamptz
);
`;

/**
 * The broker's own sign-in tables in the `platform` schema, which no app role can reach: the
 * app's tables never hold a password, a verifier, a refresh token or an access token.
 * Every statement is idempotent, so this first step adopts the tables of a data directory made
 * before the platform schema had versions.
 */
/** Private-app grants by address (`AppGrants`): in the central store, or a lone app's database. */
export const appGrantsTableSql = `
CREATE TABLE IF NOT EXISTS platform.app_grants (
  app_id text NOT NULL,
  email text NOT NULL,
  granted_at timestamptz NOT NULL,
  PRIMARY KEY (app_id, email)
);
`;

export const authSchemaSql = `
CREATE TABLE IF NOT EXISTS platform.auth_keys (
  name text PRIMARY KEY,
  secret text NOT NULL
);
${accountsTableSql}
CREATE TABLE IF NOT EXISTS platform.sessions (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES platform.accounts (id) ON DELETE CASCADE,
  app_id text NOT NULL,
  provisional boolean NOT NULL,
  refresh_hash text NOT NULL,
  previous_refresh_hash text,
  rotated_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text
);
CREATE INDEX IF NOT EXISTS sessions_account ON platform.sessions (account_id);
${emailLinksTableSql}${appGrantsTableSql}
CREATE TABLE IF NOT EXISTS platform.app_tokens (
  id text PRIMARY KEY,
  app_id text NOT NULL,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  hint text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
`;

/** The sign-in tables as a step of the platform schema (`app/platform-schema.ts` numbers it). */
export const authTablesStep: SchemaChange = { name: 'auth', sql: authSchemaSql };

/**
 * App access tokens made by a one-time reveal link (the value exists only once the owner opens
 * it, so it is never stored) and credential requests that the owner approves in the browser.
 */
export const appTokenRevealsStep: SchemaChange = {
  name: 'app-token-reveals',
  sql: `
ALTER TABLE platform.app_tokens ALTER COLUMN token_hash DROP NOT NULL;
ALTER TABLE platform.app_tokens ALTER COLUMN hint DROP NOT NULL;
ALTER TABLE platform.app_tokens ADD COLUMN reveal_hash text UNIQUE;
ALTER TABLE platform.app_tokens ADD COLUMN reveal_expires_at timestamptz;
CREATE TABLE platform.app_token_requests (
  id text PRIMARY KEY,
  app_id text NOT NULL,
  name text NOT NULL,
  user_code text NOT NULL,
  claim_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'claimed')),
  token_id text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
};

/**
 * Agent credentials (docs/agents.md), beside the accounts: each acts for one account on one
 * app, never as a browser session; only the SHA-256 of the value is kept.
 */
export const agentCredentialsStep: SchemaChange = {
  name: 'agent-credentials',
  sql: `
CREATE TABLE platform.agent_credentials (
  id text PRIMARY KEY,
  account_id uuid NOT NULL,
  app_id text NOT NULL,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  hint text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX agent_credentials_account ON platform.agent_credentials (account_id);
`,
};

/** Requests from a terminal for an agent credential too, and who decided each. */
export const credentialRequestKindsStep: SchemaChange = {
  name: 'credential-request-kinds',
  sql: `
ALTER TABLE platform.app_token_requests
  ADD COLUMN kind text NOT NULL DEFAULT 'app_token' CHECK (kind IN ('app_token', 'agent')),
  ADD COLUMN decided_by uuid;
`,
};

/**
 * When a session's person signed in: its creation for a sign-in in this app, the original
 * sign-in's time for one handed over from another app. Sessions from before this step have
 * none and count from their creation.
 */
export const sessionSignInTimeStep: SchemaChange = {
  name: 'session-sign-in-time',
  sql: `
ALTER TABLE platform.sessions ADD COLUMN IF NOT EXISTS signed_in_at timestamptz;
`,
};

/**
 * Account credentials (docs/auth.md, "The CLI signed in to a service"): a CLI credential that
 * acts as one account at `{base_url}`, kept in the agent credentials' table as `kind = 'account'`
 * with no app; and the terminal's requests for one, in a table of the same shape beside the
 * accounts (an app database's `app_token_requests` belongs to one app, a login to none).
 */
export const accountCredentialsStep: SchemaChange = {
  name: 'account-credentials',
  sql: `
ALTER TABLE platform.agent_credentials
  ADD COLUMN kind text NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'account')),
  ALTER COLUMN app_id DROP NOT NULL,
  ADD CONSTRAINT agent_credentials_app_by_kind CHECK ((kind = 'agent') = (app_id IS NOT NULL));
CREATE TABLE platform.account_credential_requests (
  id text PRIMARY KEY,
  app_id text NOT NULL,
  name text NOT NULL,
  user_code text NOT NULL,
  claim_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'claimed')),
  token_id text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  kind text NOT NULL CHECK (kind = 'account'),
  decided_by uuid
);
`,
};
