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
