import { PlatformError } from '@platform/errors';
import type { Context, Hono } from 'hono';
import { checkActingAs } from '../http/acting-as.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { orgApiPaths, ownerApiPaths } from '../http/paths.ts';
import { normalizeEmail } from '../kernel/email.ts';
import type { Outbox } from '../outbox/outbox.ts';
import type { Audience, CentralAuthority } from './authority.ts';
import { sendInvitation } from './invitation-mail.ts';
import type { Member, Memberships } from './memberships.ts';

/** What the authority routes of one app need. */
export interface AuthorityRouteServices {
  /** The app these routes answer for; any other id in the path is `APP_NOT_FOUND`. */
  readonly appId: string;
  readonly authority: CentralAuthority;
  readonly members: Memberships;
  /** The organisation's apps with their `{app_url}` (this one included). */
  readonly apps: () => readonly { readonly appId: string; readonly url: string }[];
  /** The app's visibility: who may open it, answered beside the audiences. */
  readonly visibility: 'public' | 'private';
  /** Where the invitation email goes out. */
  readonly outbox: Outbox;
  /** This app's `{app_url}`, whose account page the invitation email links to. */
  readonly appUrl: string;
}

/**
 * The owner API of an app's authority facts (docs/organisations.md), named by member email:
 *
 * - `GET /v1/apps/:appId/authority` answers `{ appId, owner, visibility, open, use, administer,
 *   editors }`: `open` is who may open the app (`anyone` for a public app; `granted` for a
 *   private one: the owner, confirmed accounts with a grant, platform administrators), apart
 *   from the Use audience, which decides who may use the app's integrations;
 * - `PUT /v1/apps/:appId/authority/use|administer` takes `{ "kind": "organisation" }` or
 *   `{ "kind": "accounts", "accounts": [emails] }`, `.../editors` `{ "accounts": [emails] }`,
 *   `.../owner` `{ "account": email }`, and answers 204.
 *
 * Also the organisation (`GET /v1/organisation`: its apps and members, for the dashboard), its
 * members: `GET /v1/organisation/members`, `POST /v1/organisation/members` with
 * `{ email, actingAs }` (an administrator invites an address: `{ email, state, expiresAt }`, and an
 * invitation email goes to it),
 * `PUT /v1/organisation/members/:email/role` with `{ role, actingAs }` and
 * `DELETE /v1/organisation/members/:email?actingAs=<email>` (`ROLE_CHANGE_FORBIDDEN`,
 * `LAST_ADMINISTRATOR`, `MEMBER_NOT_FOUND`); and this machine's platform administrators:
 * `GET /v1/platform-administrators`, `PUT|DELETE …/:email`.
 *
 * Like the rest of the owner API it is admitted with the dev token (this machine's operator,
 * who acts with the organisation's authority); `{base_url}` forwards it to the app.
 */
export function mountAuthorityRoutes(
  app: Hono<BrokerEnv>,
  { appId, authority, members, apps, visibility, outbox, appUrl }: AuthorityRouteServices,
): void {
  const checkApp = (id: string) => {
    if (id !== appId) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `This broker serves the app "${appId}", not "${id}".`,
        details: { appId: id },
      });
    }
  };
  const emailsOf = async (accountIds: readonly string[]) => {
    const byId = new Map((await members.list()).map((m) => [m.accountId, m.email]));
    return accountIds.map((id) => byId.get(id) ?? id);
  };
  const audienceOut = async (audience: Audience) =>
    audience.kind === 'organisation'
      ? audience
      : { kind: audience.kind, accounts: await emailsOf(audience.accountIds) };
  const idsOf = async (emails: unknown, field: string): Promise<string[]> => {
    if (!Array.isArray(emails) || emails.some((e) => typeof e !== 'string')) {
      throw invalid(`${field} must be a list of member email addresses.`, field);
    }
    const all = await members.list();
    return (emails as string[]).map((email) => memberByEmail(all, email).accountId);
  };

  app.get(orgApiPaths.authority, async (c) => {
    checkApp(c.req.param('appId'));
    const facts = await authority.facts(appId);
    const [owner] = facts.ownerAccountId === null ? [null] : await emailsOf([facts.ownerAccountId]);
    return c.json({
      appId,
      owner,
      visibility,
      open: visibility === 'public' ? 'anyone' : 'granted',
      use: await audienceOut(facts.use),
      administer: await audienceOut(facts.administer),
      editors: await emailsOf(facts.editorAccountIds),
    });
  });

  app.put(orgApiPaths.authorityFact, async (c) => {
    checkApp(c.req.param('appId'));
    const fact = c.req.param('fact');
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (fact === 'use' || fact === 'administer') {
      const kind = body?.kind;
      if (kind === 'organisation') {
        await authority.setAudience(appId, fact, { kind });
      } else if (kind === 'accounts') {
        await authority.setAudience(appId, fact, {
          kind,
          accountIds: await idsOf(body?.accounts, 'accounts'),
        });
      } else {
        throw invalid(
          'An audience is { "kind": "organisation" } or { "kind": "accounts", "accounts": [emails] }.',
          'kind',
        );
      }
    } else if (fact === 'editors') {
      await authority.setEditors(appId, await idsOf(body?.accounts, 'accounts'));
    } else if (fact === 'owner') {
      if (typeof body?.account !== 'string') {
        throw invalid('The owner is { "account": "<member email>" }.', 'account');
      }
      const [ownerId] = await idsOf([body.account], 'account');
      await authority.setOwner(appId, ownerId as string);
    } else {
      throw new PlatformError({
        code: 'ROUTE_NOT_FOUND',
        message: `No authority fact "${fact}": use, administer, editors or owner.`,
      });
    }
    return c.body(null, 204);
  });

  // The organisation's members and roles. The dev token is the operator, not an account: a
  // change names the administrator on whose authority it is made (`actingAs`), and the rules
  // of Memberships (administrators only, never the last administrator) apply to that account.
  // The owner's session in the console acts as that owner only (checkActingAs).
  const actingMember = async (c: Context<BrokerEnv>, email: unknown) => {
    if (typeof email !== 'string')
      throw invalid('actingAs must be a member email address.', 'actingAs');
    const member = memberByEmail(await members.list(), email);
    checkActingAs(c, member.accountId, member.email);
    return member;
  };
  const actor = async (c: Context<BrokerEnv>, email: unknown) =>
    (await actingMember(c, email)).accountId;
  app.get(orgApiPaths.organisation, async (c) =>
    c.json({ apps: apps(), members: await members.list() }),
  );
  app.get(orgApiPaths.members, async (c) => c.json({ members: await members.list() }));
  app.post(orgApiPaths.members, async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (typeof body?.email !== 'string') throw invalid('email must be an email address.', 'email');
    const inviter = await actingMember(c, body.actingAs);
    const invitation = await members.invite(inviter.accountId, body.email);
    await sendInvitation(outbox, invitation, { inviter: inviter.email, appUrl });
    return c.json(invitation);
  });
  app.put(orgApiPaths.memberRole, async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const role = body?.role;
    if (role !== 'member' && role !== 'administrator') {
      throw invalid('role must be "member" or "administrator".', 'role');
    }
    const member = await members.setRole(
      await actor(c, body?.actingAs),
      c.req.param('email'),
      role,
    );
    return c.json({ member });
  });
  app.delete(orgApiPaths.member, async (c) => {
    await members.remove(await actor(c, c.req.query('actingAs')), c.req.param('email'));
    return c.body(null, 204);
  });

  // This machine's platform administrators, who may open any app for review (spec 5.3.2).
  const adminsPath = ownerApiPaths.platformAdministrators;
  app.get(adminsPath, async (c) => {
    return c.json({ administrators: await emailsOf(await authority.platformAdministrators()) });
  });
  app.put(`${adminsPath}/:email`, async (c) => {
    const [accountId] = await idsOf([c.req.param('email')], 'email');
    await authority.setPlatformAdministrator(accountId as string, true);
    return c.body(null, 204);
  });
  app.delete(`${adminsPath}/:email`, async (c) => {
    const [accountId] = await idsOf([c.req.param('email')], 'email');
    await authority.setPlatformAdministrator(accountId as string, false);
    return c.body(null, 204);
  });
}

function invalid(message: string, field: string): PlatformError {
  return new PlatformError({ code: 'INVALID_REQUEST', message, details: { field } });
}

function memberByEmail(members: readonly Member[], email: string): Member {
  const found = members.find((m) => m.email === normalizeEmail(email));
  if (!found) {
    throw new PlatformError({
      code: 'MEMBER_NOT_FOUND',
      message: `${email} is not a member of the organisation.`,
      details: { email },
    });
  }
  return found;
}
