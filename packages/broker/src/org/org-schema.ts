import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The organisation's members, in whichever database holds the accounts (the central store, or
 * a broker's own database when it runs alone). Every account belongs to the organisation from
 * the moment it is created (a trigger, so no code path can create an account outside it), and
 * nothing but an administrator's change moves it: signing in or changing the address does not.
 * The first member is its administrator; accounts that existed before become members, the
 * oldest the administrator.
 */
export const membershipsStep: SchemaChange = {
  name: 'memberships',
  sql: `
CREATE TABLE IF NOT EXISTS platform.memberships (
  account_id uuid PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('member', 'administrator')),
  joined_at timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION platform.join_organisation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO platform.memberships (account_id, role, joined_at)
  VALUES (
    NEW.id,
    CASE WHEN EXISTS (SELECT 1 FROM platform.memberships WHERE role = 'administrator')
      THEN 'member' ELSE 'administrator' END,
    NEW.created_at
  )
  ON CONFLICT (account_id) DO NOTHING;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS accounts_join_organisation ON platform.accounts;
CREATE TRIGGER accounts_join_organisation AFTER INSERT ON platform.accounts
  FOR EACH ROW EXECUTE FUNCTION platform.join_organisation();
INSERT INTO platform.memberships (account_id, role, joined_at)
  SELECT id, 'member', created_at FROM platform.accounts
  ON CONFLICT (account_id) DO NOTHING;
UPDATE platform.memberships SET role = 'administrator'
  WHERE NOT EXISTS (SELECT 1 FROM platform.memberships WHERE role = 'administrator')
    AND account_id = (SELECT id FROM platform.accounts ORDER BY created_at, id LIMIT 1);
`,
};

/**
 * The apps of the organisation and the authority facts of spec 5.3/5.4 (docs/organisations.md):
 * each app's owner, its Use and Administer audiences (no row: Use is the whole organisation,
 * Administer its owner and the organisation's administrators), who besides the owner may Edit it,
 * and this machine's platform administrators.
 */
export const authorityStep: SchemaChange = {
  name: 'authority',
  sql: `
CREATE TABLE platform.apps (
  app_id text PRIMARY KEY,
  owner_account_id uuid,
  registered_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE platform.app_audiences (
  app_id text NOT NULL REFERENCES platform.apps (app_id) ON DELETE CASCADE,
  audience text NOT NULL CHECK (audience IN ('use', 'administer')),
  kind text NOT NULL CHECK (kind IN ('organisation', 'accounts')),
  PRIMARY KEY (app_id, audience)
);
CREATE TABLE platform.app_audience_accounts (
  app_id text NOT NULL,
  audience text NOT NULL,
  account_id uuid NOT NULL,
  PRIMARY KEY (app_id, audience, account_id),
  FOREIGN KEY (app_id, audience)
    REFERENCES platform.app_audiences (app_id, audience) ON DELETE CASCADE
);
CREATE TABLE platform.app_editors (
  app_id text NOT NULL REFERENCES platform.apps (app_id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  PRIMARY KEY (app_id, account_id)
);
CREATE TABLE platform.platform_admins (
  account_id uuid PRIMARY KEY
);
`,
};

/**
 * The one-time links that set up a service's first platform administrator (`platform serve`):
 * only a hash of each secret is kept, with its expiry and the moment it was used.
 */
export const setupLinksStep: SchemaChange = {
  name: 'setup links',
  sql: `
CREATE TABLE platform.setup_links (
  secret_hash text PRIMARY KEY,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
`,
};

/**
 * Departures (docs/organisations.md, "Deleting a member's account"): a member whose account was
 * deleted leaves a SHA-256 digest of the address, never the address, so that the address signing
 * up again makes a new account outside the organisation; an administrator's invitation removes
 * the digest (and admits an account that signed up meanwhile). The trigger that makes every new
 * account a member skips an address with a departure.
 */
export const departuresStep: SchemaChange = {
  name: 'departures',
  sql: `
CREATE TABLE platform.departures (
  email_digest text PRIMARY KEY,
  departed_at timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION platform.join_organisation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM platform.departures
    WHERE email_digest = encode(sha256(convert_to(lower(NEW.email), 'UTF8')), 'hex')
  ) THEN
    RETURN NEW;
  END IF;
  INSERT INTO platform.memberships (account_id, role, joined_at)
  VALUES (
    NEW.id,
    CASE WHEN EXISTS (SELECT 1 FROM platform.memberships WHERE role = 'administrator')
      THEN 'member' ELSE 'administrator' END,
    NEW.created_at
  )
  ON CONFLICT (account_id) DO NOTHING;
  RETURN NEW;
END $$;
`,
};

/**
 * Company assignment (docs/organisations.md, "Which company an account belongs to"): every
 * account is assigned to exactly one company when it is created, and only an act of its own
 * (accepting an invitation) moves it. The first account of the store founds the organisation as
 * its administrator; an address with a live invitation joins it; every other account (an app's
 * end user registering, an address that left with a deleted account) gets a personal company of
 * its own, with no apps. Invitations keep a digest of the address, never the address.
 */
export const companyAssignmentStep: SchemaChange = {
  name: 'company assignment',
  sql: `
CREATE TABLE platform.personal_companies (
  account_id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL
);
CREATE TABLE platform.invitations (
  email_digest text PRIMARY KEY,
  invited_by uuid,
  invited_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
-- An address that left with its deleted account was waiting for an invitation: it still is, as
-- every address outside the organisation is, so the departures' digests have nothing left to do.
DROP TABLE IF EXISTS platform.departures;
INSERT INTO platform.personal_companies (account_id, created_at)
  SELECT a.id, a.created_at FROM platform.accounts a
  WHERE NOT EXISTS (SELECT 1 FROM platform.memberships m WHERE m.account_id = a.id);
CREATE OR REPLACE FUNCTION platform.join_organisation() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  invited integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM platform.memberships WHERE role = 'administrator') THEN
    INSERT INTO platform.memberships (account_id, role, joined_at)
    VALUES (NEW.id, 'administrator', NEW.created_at) ON CONFLICT (account_id) DO NOTHING;
    RETURN NEW;
  END IF;
  WITH used AS (
    DELETE FROM platform.invitations
    WHERE email_digest = encode(sha256(convert_to(lower(NEW.email), 'UTF8')), 'hex')
      AND expires_at > NEW.created_at
    RETURNING 1
  ) SELECT count(*) INTO invited FROM used;
  IF invited > 0 THEN
    INSERT INTO platform.memberships (account_id, role, joined_at)
    VALUES (NEW.id, 'member', NEW.created_at) ON CONFLICT (account_id) DO NOTHING;
  ELSE
    INSERT INTO platform.personal_companies (account_id, created_at)
    VALUES (NEW.id, NEW.created_at) ON CONFLICT (account_id) DO NOTHING;
  END IF;
  RETURN NEW;
END $$;
`,
};
