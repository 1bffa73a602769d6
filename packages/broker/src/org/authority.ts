import { PlatformError } from '@platform/errors';
import type { Database, Queryable } from '../db/database.ts';
import { roleOf } from './memberships.ts';

/** Who is in an app's Use or Administer audience (spec 5.4). */
export type Audience =
  | { readonly kind: 'organisation' }
  | { readonly kind: 'accounts'; readonly accountIds: readonly string[] };

/** Which audience of an app. */
export type AudienceName = 'use' | 'administer';

/** An app's authority facts, as the owner API shows them. */
export interface AppAuthority {
  readonly appId: string;
  /** The owner's account id; `null` until one is set. */
  readonly ownerAccountId: string | null;
  readonly use: Audience;
  readonly administer: Audience;
  /** Who besides the owner may change the app's code. */
  readonly editorAccountIds: readonly string[];
}

/** The authority facts of spec 5.3/5.4 for the organisation's apps, read live on every call. */
export interface Authority {
  /** Whether the account is a member of the organisation. */
  isMember(accountId: string): Promise<boolean>;
  /** Whether the account is an organisation administrator. */
  isAdministrator(accountId: string): Promise<boolean>;
  /** Whether the account is in the app's Use audience (administrators of the organisation always are). */
  mayUse(appId: string, accountId: string): Promise<boolean>;
  /** Whether the account is in the app's Administer audience (the owner and organisation administrators always are). */
  mayAdminister(appId: string, accountId: string): Promise<boolean>;
  /** Whether the account may change the app's code (Edit: the owner always). */
  mayEdit(appId: string, accountId: string): Promise<boolean>;
  /** Sets an audience. For tests and the owner API/CLI, which check the actor first. */
  setAudience(appId: string, which: AudienceName, audience: Audience): Promise<void>;
  /** Sets who besides the owner may Edit the app. */
  setEditors(appId: string, accountIds: readonly string[]): Promise<void>;
}

/** The organisation's apps and their authority facts in the central store. */
export interface CentralAuthority extends Authority {
  /** Adds apps the store does not know yet (their facts at the defaults); known apps stay. */
  register(appIds: readonly string[]): Promise<void>;
  /** Makes a member the app's owner. */
  setOwner(appId: string, accountId: string): Promise<void>;
  /** The owner's account id; `undefined` for an app without one or one the store does not know. */
  ownerOf(appId: string): Promise<string | undefined>;
  /** Calls `listener` with the app's id after this process recorded a new owner of it. */
  onOwnerChange(listener: (appId: string) => void): void;
  /** Every fact of one app (`APP_NOT_FOUND` for an app the store does not know). */
  facts(appId: string): Promise<AppAuthority>;
  /**
   * Whether the account is a platform administrator of this machine: signed in, it may open
   * any app of the workspace for review with its own identity (spec 5.3.2).
   */
  isPlatformAdministrator(accountId: string): Promise<boolean>;
  /** Makes a member a platform administrator (`on`), or no longer one. */
  setPlatformAdministrator(accountId: string, on: boolean): Promise<void>;
  /** The platform administrators' account ids. */
  platformAdministrators(): Promise<string[]>;
}

// Without a row an audience is its default: Use the whole organisation; Administer nobody beyond
// the owner and the organisation's administrators, who always administer.
const DEFAULT_AUDIENCE: Record<AudienceName, Audience> = {
  use: { kind: 'organisation' },
  administer: { kind: 'accounts', accountIds: [] },
};

/**
 * The authority facts kept in the central store `central` (docs/organisations.md). Every check
 * reads the store, so a narrowed audience or a departed member counts from the next call on. A
 * setter that names an unknown app (`APP_NOT_FOUND`) or an account that is not a member
 * (`MEMBER_NOT_FOUND`) writes nothing.
 *
 * @example
 * ```ts
 * const authority = centralAuthority(central);
 * await authority.setAudience('crm', 'use', { kind: 'accounts', accountIds: [ada.id] });
 * await authority.mayUse('crm', grace.id); // false
 * ```
 */
export function centralAuthority(central: Database): CentralAuthority {
  const owner = async (appId: string) =>
    (
      await central.query<{ owner: string | null }>(
        'SELECT owner_account_id AS owner FROM platform.apps WHERE app_id = $1',
        [appId],
      )
    ).rows[0];
  const ownerListeners = new Set<(appId: string) => void>();
  const inAudience = async (appId: string, which: AudienceName, accountId: string) => {
    const audience = await readAudience(central, appId, which);
    return audience.kind === 'organisation' || audience.accountIds.includes(accountId);
  };
  return {
    isMember: async (accountId) => (await roleOf(central, accountId)) !== undefined,
    isAdministrator: async (accountId) => (await roleOf(central, accountId)) === 'administrator',
    async mayUse(appId, accountId) {
      const [memberRole, app] = await Promise.all([roleOf(central, accountId), owner(appId)]);
      if (memberRole === undefined || app === undefined) return false;
      if (memberRole === 'administrator' || app.owner === accountId) return true;
      return inAudience(appId, 'use', accountId);
    },
    async mayAdminister(appId, accountId) {
      const [memberRole, app] = await Promise.all([roleOf(central, accountId), owner(appId)]);
      if (memberRole === undefined || app === undefined) return false;
      if (memberRole === 'administrator' || app.owner === accountId) return true;
      return inAudience(appId, 'administer', accountId);
    },
    async mayEdit(appId, accountId) {
      const [memberRole, app] = await Promise.all([roleOf(central, accountId), owner(appId)]);
      if (memberRole === undefined || app === undefined) return false;
      if (app.owner === accountId) return true;
      const { rows } = await central.query(
        'SELECT 1 FROM platform.app_editors WHERE app_id = $1 AND account_id = $2',
        [appId, accountId],
      );
      return rows.length > 0;
    },
    async setAudience(appId, which, audience) {
      await central.transaction(async (tx) => {
        await requireApp(tx, appId);
        const accountIds = audience.kind === 'accounts' ? unique(audience.accountIds) : [];
        await requireMembers(tx, accountIds);
        await tx.query('DELETE FROM platform.app_audiences WHERE app_id = $1 AND audience = $2', [
          appId,
          which,
        ]);
        await tx.query(
          'INSERT INTO platform.app_audiences (app_id, audience, kind) VALUES ($1, $2, $3)',
          [appId, which, audience.kind],
        );
        for (const accountId of accountIds) {
          await tx.query(
            'INSERT INTO platform.app_audience_accounts (app_id, audience, account_id) VALUES ($1, $2, $3)',
            [appId, which, accountId],
          );
        }
      });
    },
    async setEditors(appId, accountIds) {
      await central.transaction(async (tx) => {
        await requireApp(tx, appId);
        const editors = unique(accountIds);
        await requireMembers(tx, editors);
        await tx.query('DELETE FROM platform.app_editors WHERE app_id = $1', [appId]);
        for (const accountId of editors) {
          await tx.query('INSERT INTO platform.app_editors (app_id, account_id) VALUES ($1, $2)', [
            appId,
            accountId,
          ]);
        }
      });
    },
    async register(appIds) {
      for (const appId of appIds) {
        await central.query(
          'INSERT INTO platform.apps (app_id) VALUES ($1) ON CONFLICT (app_id) DO NOTHING',
          [appId],
        );
      }
    },
    async setOwner(appId, accountId) {
      await central.transaction(async (tx) => {
        await requireApp(tx, appId);
        await requireMembers(tx, [accountId]);
        await tx.query('UPDATE platform.apps SET owner_account_id = $2 WHERE app_id = $1', [
          appId,
          accountId,
        ]);
      });
      for (const listener of ownerListeners) listener(appId);
    },
    async ownerOf(appId) {
      return (await owner(appId))?.owner ?? undefined;
    },
    onOwnerChange(listener) {
      ownerListeners.add(listener);
    },
    async isPlatformAdministrator(accountId) {
      const { rows } = await central.query(
        'SELECT 1 FROM platform.platform_admins WHERE account_id::text = $1',
        [accountId],
      );
      return rows.length > 0;
    },
    async setPlatformAdministrator(accountId, on) {
      if (!on) {
        await central.query('DELETE FROM platform.platform_admins WHERE account_id = $1', [
          accountId,
        ]);
        return;
      }
      await central.transaction(async (tx) => {
        await requireMembers(tx, [accountId]);
        await tx.query(
          'INSERT INTO platform.platform_admins (account_id) VALUES ($1) ON CONFLICT DO NOTHING',
          [accountId],
        );
      });
    },
    async platformAdministrators() {
      const { rows } = await central.query<{ account_id: string }>(
        'SELECT account_id::text FROM platform.platform_admins ORDER BY account_id',
      );
      return rows.map((row) => row.account_id);
    },
    async facts(appId) {
      const app = await owner(appId);
      if (app === undefined) throw appNotFound(appId);
      const { rows } = await central.query<{ account_id: string }>(
        'SELECT account_id FROM platform.app_editors WHERE app_id = $1 ORDER BY account_id',
        [appId],
      );
      return {
        appId,
        ownerAccountId: app.owner,
        use: await readAudience(central, appId, 'use'),
        administer: await readAudience(central, appId, 'administer'),
        editorAccountIds: rows.map((row) => row.account_id),
      };
    },
  };
}

async function readAudience(db: Queryable, appId: string, which: AudienceName): Promise<Audience> {
  const { rows } = await db.query<{ kind: Audience['kind'] }>(
    'SELECT kind FROM platform.app_audiences WHERE app_id = $1 AND audience = $2',
    [appId, which],
  );
  const kind = rows[0]?.kind;
  if (kind === undefined) return DEFAULT_AUDIENCE[which];
  if (kind === 'organisation') return { kind };
  const members = await db.query<{ account_id: string }>(
    `SELECT account_id FROM platform.app_audience_accounts
     WHERE app_id = $1 AND audience = $2 ORDER BY account_id`,
    [appId, which],
  );
  return { kind, accountIds: members.rows.map((row) => row.account_id) };
}

function appNotFound(appId: string): PlatformError {
  return new PlatformError({
    code: 'APP_NOT_FOUND',
    message: `The organisation has no app "${appId}".`,
    details: { appId },
  });
}

async function requireApp(db: Queryable, appId: string): Promise<void> {
  const { rows } = await db.query('SELECT 1 FROM platform.apps WHERE app_id = $1', [appId]);
  if (rows.length === 0) throw appNotFound(appId);
}

async function requireMembers(db: Queryable, accountIds: readonly string[]): Promise<void> {
  if (accountIds.length === 0) return;
  const { rows } = await db.query<{ account_id: string }>(
    'SELECT account_id::text FROM platform.memberships WHERE account_id::text = ANY($1::text[])',
    [accountIds],
  );
  const found = new Set(rows.map((row) => row.account_id));
  const missing = accountIds.find((id) => !found.has(id));
  if (missing !== undefined) {
    throw new PlatformError({
      code: 'MEMBER_NOT_FOUND',
      message: `Account ${missing} is not a member of the organisation.`,
      details: { accountId: missing },
    });
  }
}

const unique = (ids: readonly string[]) => [...new Set(ids)];
