import { PlatformError } from '@platform/errors';
import type { Context, Hono } from 'hono';
import type { Database } from '../db/database.ts';
import { readBearer } from '../http/bearer.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { accountApiPaths } from '../http/paths.ts';
import type { Clock } from '../kernel/clock.ts';
import { type AccountCredentialInfo, AccountCredentials } from './account-credentials.ts';
import { accountCredentialRequests } from './auth-parts.ts';

/** The account behind a credential as the organisation knows it. */
export interface AccountMember {
  readonly accountId: string;
  readonly email: string;
  readonly role: 'member' | 'administrator';
}

/** What `{base_url}`'s account routes are built from. */
export interface AccountRoutesOptions {
  /** The organisation's central store (accounts, account credentials and their requests). */
  readonly central: Database;
  readonly clock: Clock;
  readonly organisation: string;
  /** The organisation's member with this account id, if it still is one. */
  readonly member: (accountId: string) => Promise<AccountMember | undefined>;
  /**
   * Where a browser approves a request: the origin of a page that serves
   * {@link accountApiPaths.approvePage} with the organisation's sign-in (an app's), or
   * `undefined` when this origin serves it itself.
   */
  readonly approvalOrigin: () => string | undefined;
}

/** Who a request at `{base_url}` acts as, once its account credential checked out. */
export interface AccountCaller {
  readonly member: AccountMember;
  readonly credential: AccountCredentialInfo;
}

/** Checks the account credential of a request at `{base_url}`. */
export type AccountAuthenticator = (c: Context<BrokerEnv>) => Promise<AccountCaller | undefined>;

const refused = () =>
  new PlatformError({
    code: 'AUTH_REQUIRED',
    message:
      'This needs a live account credential of a member (Authorization: Bearer plat_account_...); sign in with: platform login --to <base_url>',
  });

const nameOf = (body: unknown): string => {
  const name =
    typeof body === 'object' && body !== null
      ? ((body as Record<string, unknown>).name ?? 'cli')
      : 'cli';
  if (typeof name !== 'string' || name.length === 0 || name.length > 100) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: 'A credential name has 1 to 100 characters.',
      details: { field: 'name' },
    });
  }
  return name;
};

/**
 * The CLI signed in to a service, on `{base_url}` (docs/auth.md): `platform login` asks for an
 * account credential in the manner of the device grant (the request and its claim need no
 * credential; a signed-in person approves in the browser by typing the terminal's code), and the
 * credential then answers who it is, lists the account's credentials and revokes one of them.
 * Answers the check of a presented account credential, for the organisation's other routes that
 * admit one. A credential whose account left the organisation is refused like a revoked one.
 */
export function mountAccountRoutes(
  app: Hono<BrokerEnv>,
  options: AccountRoutesOptions,
): AccountAuthenticator {
  const credentials = new AccountCredentials(options.central, options.clock);
  const requests = accountCredentialRequests(options.central, options.clock);
  const authenticate: AccountAuthenticator = async (c) => {
    const presented = readBearer(c.req.header('authorization'));
    if (typeof presented !== 'string') return undefined;
    const credential = await credentials.verify(presented);
    if (credential === undefined) return undefined;
    const member = await options.member(credential.accountId);
    return member === undefined ? undefined : { member, credential };
  };
  const caller = async (c: Context<BrokerEnv>): Promise<AccountCaller> => {
    const found = await authenticate(c);
    if (found === undefined) throw refused();
    return found;
  };
  const noStore = { 'cache-control': 'no-store' };

  app.post(accountApiPaths.loginRequests, async (c) => {
    const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true });
    const request = await requests.create(nameOf(body), 'account');
    const approveUrl = new URL(
      accountApiPaths.approvePage.replace(':id', encodeURIComponent(request.id)),
      c.req.url,
    ).href;
    return c.json({ ...request, approveUrl }, 201, noStore);
  });
  app.post(accountApiPaths.loginClaim, async (c) => {
    const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json });
    const secret =
      typeof body === 'object' && body !== null
        ? (body as Record<string, unknown>).secret
        : undefined;
    if (typeof secret !== 'string') {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'Claim with { "secret": "<claimSecret of the request>" }.',
        details: { field: 'secret' },
      });
    }
    const claim = await requests.claim(c.req.param('id') ?? '', secret);
    return c.json(claim, claim.state === 'pending' ? 202 : 200, noStore);
  });
  // The browser is sent to where the organisation's sign-in is; the page there changes nothing
  // on a GET, so a redirect of one is as safe as the page.
  app.get(accountApiPaths.approvePage, (c) => {
    const origin = options.approvalOrigin();
    if (origin === undefined) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: 'No app of the organisation is running to sign in at.',
      });
    }
    const here = new URL(c.req.url);
    return c.redirect(new URL(`${here.pathname}${here.search}`, origin).href, 302);
  });
  app.get(accountApiPaths.account, async (c) => {
    const { member, credential } = await caller(c);
    return c.json({ ...member, organisation: options.organisation, credential }, 200, noStore);
  });
  app.get(accountApiPaths.credentials, async (c) => {
    const { member } = await caller(c);
    return c.json({ credentials: await credentials.list(member.accountId) }, 200, noStore);
  });
  app.delete(accountApiPaths.credential, async (c) => {
    const { member, credential } = await caller(c);
    const param = c.req.param('id') ?? '';
    const id = param === 'current' ? credential.id : param;
    if (!(await credentials.revoke(member.accountId, id))) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `You have no live account credential ${id}.`,
        details: { field: 'id' },
      });
    }
    return c.json({ id, revoked: true });
  });
  return authenticate;
}
