import { PlatformError } from '@platform/errors';
import type { Context } from 'hono';
import { AccountCredentials } from '../auth/account-credentials.ts';
import type { AccountAdmission } from '../auth/auth-options.ts';
import type { Database } from '../db/database.ts';
import { readBearer } from '../http/bearer.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Clock } from '../kernel/clock.ts';
import { type CentralAuthority, centralAuthority } from '../org/authority.ts';
import { roleOf } from '../org/memberships.ts';
import { APP_ID_PATTERN } from '../project/app-id.ts';

/** Who may use the owner API of `platform serve`'s deployed apps, asked per request. */
export interface OwnerAccess {
  readonly authority: CentralAuthority;
  /** The central store the checks read (members, roles, apps). */
  readonly central: Database;
  /** The member's account id behind the request's account credential; `AUTH_REQUIRED` else. */
  caller(c: Context<BrokerEnv>): Promise<string>;
  /**
   * The member's account id behind the account credential `presented`, or `undefined` when it
   * is no member's live credential. One per node, so a credential's last use is remembered once.
   */
  memberOf(presented: string): Promise<string | undefined>;
  /** The route's app id, checked; `INVALID_INPUT` for one that cannot be an app id. */
  appIdOf(c: Context<BrokerEnv>): string;
  /** The app's owner: `undefined` when the organisation has no such app, `null` when unowned. */
  ownerOf(appId: string): Promise<string | null | undefined>;
  /**
   * The caller ({@link OwnerAccess.caller}) and the route's app id, for an app the organisation
   * has: `APP_NOT_FOUND`, pointing at `platform deploy`, otherwise.
   */
  existingApp(c: Context<BrokerEnv>): Promise<{ accountId: string; appId: string }>;
  /** `PERMISSION_DENIED` about `appId`. */
  denied(message: string, appId: string): PlatformError;
}

/**
 * `asked` as an app id of the service: `INVALID_INPUT` unless it is lower-case letters, digits
 * and inner hyphens, at most 40 characters (it becomes `<app>.<baseDomain>`).
 */
export function checkedAppId(asked: string | undefined, baseDomain: string): string {
  const appId = asked ?? '';
  if (!APP_ID_PATTERN.test(appId)) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `"${appId.slice(0, 100)}" is not an app id: lower-case letters, digits and inner hyphens, at most 40 characters (it becomes <app>.${baseDomain}).`,
      details: { appId: appId.slice(0, 100) },
    });
  }
  return appId;
}

/**
 * The checks the owner API of `platform serve` shares, made once per node (deployments, domains,
 * secrets, and each deployed app's own owner API): a member's live account credential from
 * `platform login`, a well-formed app id, the app's owner.
 */
export function ownerAccess(options: {
  readonly central: Database;
  readonly clock: Clock;
  readonly baseDomain: string;
}): OwnerAccess {
  const { central } = options;
  const memberOf = liveMember(central, options.clock);
  const caller = async (c: Context<BrokerEnv>) => {
    const presented = readBearer(c.req.header('authorization'));
    const accountId = typeof presented === 'string' ? await memberOf(presented) : undefined;
    if (accountId === undefined) throw accountRequired();
    return accountId;
  };
  const appIdOf = (c: Context<BrokerEnv>) => checkedAppId(c.req.param('appId'), options.baseDomain);
  const ownerOf = async (appId: string) => {
    const { rows } = await central.query<{ owner: string | null }>(
      'SELECT owner_account_id::text AS owner FROM platform.apps WHERE app_id = $1',
      [appId],
    );
    return rows[0]?.owner;
  };
  return {
    authority: centralAuthority(central),
    central,
    caller,
    memberOf,
    appIdOf,
    ownerOf,
    async existingApp(c) {
      const accountId = await caller(c);
      const appId = appIdOf(c);
      if ((await ownerOf(appId)) === undefined) {
        throw new PlatformError({
          code: 'APP_NOT_FOUND',
          message: `The organisation has no app "${appId}"; deploy it first (platform deploy).`,
          details: { appId },
        });
      }
      return { accountId, appId };
    },
    denied: (message, appId) =>
      new PlatformError({ code: 'PERMISSION_DENIED', message, details: { appId } }),
  };
}

/** `AUTH_REQUIRED` for a request without a member's live account credential. */
export const accountRequired = (): PlatformError =>
  new PlatformError({
    code: 'AUTH_REQUIRED',
    message:
      'This needs a live account credential of a member (Authorization: Bearer plat_account_...); sign in with: platform login --to <base_url>',
  });

// The member behind a live (unrevoked, unexpired) account credential: a departed member's
// credential counts for nothing even before it is revoked.
const liveMember = (central: Database, clock: Clock) => {
  const credentials = new AccountCredentials(central, clock);
  return async (presented: string): Promise<string | undefined> => {
    const credential = await credentials.verify(presented);
    if (credential === undefined) return undefined;
    return (await roleOf(central, credential.accountId)) === undefined
      ? undefined
      : credential.accountId;
  };
};

/**
 * Whether `accountId` manages `appId` on the service: its owner or an administrator of the
 * organisation (secrets, backups, tokens: what only they do).
 */
export async function ownsOrAdministers(
  central: Database,
  appId: string,
  accountId: string,
): Promise<boolean> {
  const { rows } = await central.query<{ owner: string | null }>(
    'SELECT owner_account_id::text AS owner FROM platform.apps WHERE app_id = $1',
    [appId],
  );
  if (rows[0] === undefined) return false;
  if (rows[0].owner === accountId) return true;
  return (await roleOf(central, accountId)) === 'administrator';
}

/**
 * How a deployed app's own owner API (its broker's control plane) admits the account
 * credential of `platform login`: a member's live credential, and only the app's owner or an
 * organisation administrator acts with it, as the owner does in the app's console.
 */
export function accountAdmission(access: OwnerAccess, appId: string): AccountAdmission {
  return {
    memberOf: access.memberOf,
    manages: (accountId) => ownsOrAdministers(access.central, appId, accountId),
  };
}
