import type { SchemaChange } from '../db/platform-schema.ts';
import { accountsTableSql, appGrantsTableSql, emailLinksTableSql } from './auth-schema.ts';

/**
 * The session floor of an account, in whichever database holds the accounts: sessions of any
 * app created before `sessions_valid_after` are no longer accepted, except `kept_session` (the
 * browser that confirmed its own registration). Sessions live in each app's database, so this
 * is how confirming an address, passing the confirmation deadline or changing a password ends
 * an account's sessions in every app of the organisation, not only the app where it happened.
 */
const sessionFloorSql = `
ALTER TABLE platform.accounts ADD COLUMN IF NOT EXISTS sessions_valid_after timestamptz;
ALTER TABLE platform.accounts ADD COLUMN IF NOT EXISTS kept_session text;
`;

/**
 * The central store's sign-in tables (docs/organisations.md): accounts with their password
 * verifiers, and email-link requests and confirmations. No app database holds them, so no app
 * migration, backup or data call can read a verifier.
 */
export const centralAuthStep: SchemaChange = {
  name: 'central-auth',
  sql: `${accountsTableSql}${emailLinksTableSql}${sessionFloorSql}`,
};

/**
 * The app database's side of central sign-in: its sessions name accounts that live in the
 * central store, so their reference to `platform.accounts` goes; and a broker whose accounts
 * stay in its own database (a broker started alone, tests) gets the session floor too.
 */
export const appSessionsApartStep: SchemaChange = {
  name: 'sessions-apart-from-accounts',
  sql: `
ALTER TABLE platform.sessions DROP CONSTRAINT IF EXISTS sessions_account_id_fkey;
${sessionFloorSql}`,
};

/**
 * One-time handoffs of a sign-in from one app of the organisation to another (docs/auth.md,
 * "Several apps"): only the code's hash, bound to the receiving app and to the nonce cookie of
 * the browser that asked, valid one minute.
 */
export const centralHandoffsStep: SchemaChange = {
  name: 'handoffs',
  sql: `
CREATE TABLE IF NOT EXISTS platform.handoffs (
  code_hash text PRIMARY KEY,
  account_id uuid NOT NULL,
  app_id text NOT NULL,
  state_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
`,
};

/**
 * Private-app grants in the central store (docs/organisations.md): who may open which private
 * app of the organisation is the organisation's fact, beside its accounts, not the app's.
 */
export const centralGrantsStep: SchemaChange = {
  name: 'central-grants',
  sql: appGrantsTableSql,
};

/**
 * A handoff carries the time of the sign-in it hands over, so the receiving app's session is as
 * recent as that sign-in and no more (spec 3.5). Codes issued before this step have none and
 * count as an old sign-in.
 */
export const handoffSignInTimeStep: SchemaChange = {
  name: 'handoff-sign-in-time',
  sql: `
ALTER TABLE platform.handoffs ADD COLUMN IF NOT EXISTS signed_in_at timestamptz;
`,
};

/**
 * Sign-in attempts counted against the password limits, beside the accounts, so that every
 * broker on the same store counts the same attempts (behind a load balancer an attacker's posts
 * land on several nodes). The key is a hash: the table holds neither addresses nor client
 * identities. Rows older than the window are removed by the attempts that follow.
 */
export const signInAttemptsStep: SchemaChange = {
  name: 'sign-in-attempts',
  sql: `
CREATE TABLE platform.sign_in_attempts (
  id bigserial PRIMARY KEY,
  limit_name text NOT NULL,
  key_hash text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX sign_in_attempts_by_key ON platform.sign_in_attempts (limit_name, key_hash, at);
CREATE INDEX sign_in_attempts_by_time ON platform.sign_in_attempts (at);
`,
};
