import { PlatformError } from '@platform/errors';
import type { Context, Hono } from 'hono';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { accountApiPaths, ownerApiPaths } from '../http/paths.ts';
import { safeEqual } from '../kernel/crypto.ts';
import { readForm } from '../pages/forms.ts';
import { pageResponse } from '../pages/page-shell.ts';
import {
  ACCESS_TOKEN_PAGES,
  approveRequestPage,
  revealedPage,
  revealProblems,
  revealReviewPage,
} from './app-token-pages.ts';
import type { AppTokenRequests, AppTokenRequestView } from './app-token-requests.ts';
import type { AuthService } from './auth-service.ts';
import { formPage, staleFormPage } from './form-pages.ts';
import { signInPath } from './forms.ts';
import { messagePage } from './pages.ts';

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/**
 * App access tokens (spec 2.2, 5.3.3), on the owner API (dev token; the control plane admits
 * it) and on the owner's pages under `{auth_url}`:
 *
 * - `GET {tokens}` lists, `DELETE {tokens}/:id` revokes;
 * - `POST {tokens}` `{ name? }` makes a token and answers its one-time `revealUrl`, never a value;
 * - `POST {tokens}/requests` `{ name?, kind? }` asks for an app access token (the owner
 *   approves) or, with `kind: 'agent'`, an agent credential (the person it will act for
 *   approves, one who may Edit the app): `{ id, userCode, approveUrl,
 *   claimSecret, expiresAt }`; `POST {tokens}/requests/:id/claim` `{ secret }` answers
 *   `{ state: 'pending', expiresAt }` (202) until the owner decides, then `{ state: 'approved',
 *   token, info }` once (200);
 * - `GET {agents}` lists the app's agent credentials, `DELETE {agents}/:id` revokes one;
 * - the approval page and the reveal page need the owner signed in, confirmed; their GETs
 *   change nothing (link prefetchers approve and reveal nothing), their forms carry CSRF tokens;
 *   approving needs the code the requesting terminal shows, typed (a mismatch is a 400 page and
 *   leaves the request pending);
 * - `{accountApiPaths.approvePage}`: the approval of `platform login`'s request (asked at
 *   `{base_url}`, which sends the browser here), by any signed-in, confirmed account of the
 *   organisation, for itself, with the same typed code.
 */
export function mountAppTokenRoutes(app: Hono<BrokerEnv>, auth: AuthService): void {
  // `control-routes.ts` keeps these paths to the dev token and to this app's id.
  const { tokens, agents } = ownerApiPaths;
  app.get(tokens, async (c) => c.json({ tokens: await auth.appTokens.list() }));
  app.post(tokens, (c) => createToken(auth, c));
  app.delete(`${tokens}/:id`, (c) => revokeToken(auth, c));
  app.post(`${tokens}/requests`, (c) => requestToken(auth, c));
  app.post(`${tokens}/requests/:id/claim`, (c) => claimToken(auth, c));
  app.get(agents, async (c) => c.json({ agents: await auth.agentCredentials.list(auth.appId) }));
  app.delete(`${agents}/:id`, async (c) => {
    const id = c.req.param('id') ?? '';
    if (!(await auth.agentCredentials.revoke(auth.appId, id))) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: `No live agent credential ${id}.`,
      });
    }
    return c.json({ id, revoked: true });
  });
  app.get(`${ACCESS_TOKEN_PAGES}/requests/:id`, (c) => approvalPage(auth, c, auth.tokenRequests));
  app.post(`${ACCESS_TOKEN_PAGES}/requests/:id`, (c) => decide(auth, c, auth.tokenRequests));
  app.get(accountApiPaths.approvePage, (c) => approvalPage(auth, c, auth.accountRequests));
  app.post(accountApiPaths.approvePage, (c) => decide(auth, c, auth.accountRequests));
  app.get(`${ACCESS_TOKEN_PAGES}/reveal`, (c) => revealPage(auth, c));
  app.post(`${ACCESS_TOKEN_PAGES}/reveal`, (c) => reveal(auth, c));
}

/**
 * Only the approval page of `platform login`'s request ({@link accountApiPaths.approvePage}),
 * for a sign-in that serves no app of its own (the central sign-in of `platform serve`).
 */
export function mountAccountApproval(app: Hono<BrokerEnv>, auth: AuthService): void {
  app.get(accountApiPaths.approvePage, (c) => approvalPage(auth, c, auth.accountRequests));
  app.post(accountApiPaths.approvePage, (c) => decide(auth, c, auth.accountRequests));
}

async function tokenName(c: Context<BrokerEnv>): Promise<string> {
  return nameOf(await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true }));
}

function nameOf(body: unknown): string {
  const name = field(body, 'name') ?? 'token';
  if (typeof name !== 'string' || name.length === 0 || name.length > 100) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: 'A token name has 1 to 100 characters.',
      details: { field: 'name' },
    });
  }
  return name;
}

async function createToken(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const { info, revealSecret } = await auth.appTokens.createRevealable(await tokenName(c));
  const revealUrl = `${auth.publicOrigin(c.req.raw)}${ACCESS_TOKEN_PAGES}/reveal?secret=${revealSecret}`;
  return c.json({ ...info, revealUrl }, 201, { 'cache-control': 'no-store' });
}

async function revokeToken(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const revoked = await auth.appTokens.revoke(id);
  if (!revoked) throw new PlatformError({ code: 'INVALID_INPUT', message: `No live token ${id}.` });
  return c.json({ id, revoked });
}

async function requestToken(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true });
  const kind = field(body, 'kind') ?? 'app_token';
  if (kind !== 'app_token' && kind !== 'agent') {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: 'kind is "app_token" (an app access token) or "agent" (an agent credential).',
      details: { field: 'kind' },
    });
  }
  const request = await auth.tokenRequests.create(nameOf(body), kind);
  const approveUrl = `${auth.publicOrigin(c.req.raw)}${ACCESS_TOKEN_PAGES}/requests/${request.id}`;
  return c.json({ ...request, approveUrl }, 201, { 'cache-control': 'no-store' });
}

async function claimToken(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  const body = await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json });
  const secret = field(body, 'secret');
  if (typeof secret !== 'string') {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: 'Claim with { "secret": "<claimSecret of the request>" }.',
      details: { field: 'secret' },
    });
  }
  const claim = await auth.tokenRequests.claim(c.req.param('id') ?? '', secret);
  if (claim.state === 'pending') return c.json(claim, 202, { 'cache-control': 'no-store' });
  return c.json(claim, 200, { 'cache-control': 'no-store' });
}

// The owner's pages: a browser that is not the owner's is sent to sign in and back, or told.
async function ownerOnly(
  auth: AuthService,
  c: Context<BrokerEnv>,
  page: () => Promise<Response>,
): Promise<Response> {
  if (await auth.signedInOwner(c.req.raw)) return page();
  if ((await auth.cookie(c.req.raw)) === undefined && c.req.method === 'GET') {
    return c.redirect(signInPath(c.req.url), 302);
  }
  const owner = await auth.owner();
  const why =
    owner.state === 'confirmed'
      ? `Only the app's owner (${owner.email}) approves and reveals its access tokens.`
      : "The app's owner confirms their email address before approving or revealing tokens.";
  return pageResponse(messagePage('Only the owner can do this', why), { status: 403 });
}

// The approver of a request: the owner for an app access token; for an agent credential, the
// signed-in, confirmed person the agent will act for, who must be able to Edit the app; for an
// account credential, the signed-in, confirmed person the terminal will act as.
async function approverOnly(
  auth: AuthService,
  c: Context<BrokerEnv>,
  requests: AppTokenRequests,
  page: (request: AppTokenRequestView, approver: string) => Promise<Response>,
): Promise<Response> {
  const request = await requests.find(c.req.param('id') ?? '');
  if (request === undefined) return notFound();
  if (request.kind === 'app_token') {
    return ownerOnly(auth, c, async () => page(request, (await auth.owner()).id));
  }
  const identity = await auth.cookie(c.req.raw);
  if (identity === undefined && c.req.method === 'GET') {
    return c.redirect(signInPath(c.req.url), 302);
  }
  const account = identity?.account;
  if (request.kind === 'account') {
    if (account?.state === 'confirmed') return page(request, account.id);
    const why =
      account === undefined
        ? 'Sign in as the person the terminal will act as.'
        : 'Confirm your email address before signing a terminal in.';
    return pageResponse(messagePage('You cannot approve this sign-in', why), { status: 403 });
  }
  if (account?.state === 'confirmed' && (await auth.mayApproveAgent(account.id))) {
    return page(request, account.id);
  }
  const why =
    account === undefined
      ? 'Sign in as the person the agent will act for.'
      : account.state !== 'confirmed'
        ? 'Confirm your email address before approving an agent.'
        : `${account.email} may not change ${auth.appId}, so no agent can act for them on it.`;
  return pageResponse(messagePage('You cannot approve this agent', why), { status: 403 });
}

function approvalPage(
  auth: AuthService,
  c: Context<BrokerEnv>,
  requests: AppTokenRequests,
): Promise<Response> {
  return approverOnly(auth, c, requests, async (request) =>
    formPage(auth, c.req.raw, (csrf) =>
      approveRequestPage({ app: auth.displayName, request, csrf }),
    ),
  );
}

function decide(
  auth: AuthService,
  c: Context<BrokerEnv>,
  requests: AppTokenRequests,
): Promise<Response> {
  return approverOnly(auth, c, requests, async (asked, approver) => {
    const form = await readForm(c);
    if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
    if (form.decision !== 'approve' && form.decision !== 'decline') {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'The decision is approve or decline.',
        details: { field: 'decision' },
      });
    }
    const approve = form.decision === 'approve';
    if (approve && asked.state === 'pending' && !sameCode(form.code ?? '', asked.userCode)) {
      const error =
        'That is not the code of this request. Type the code the terminal that asked shows; if no terminal of yours shows one, decline.';
      return formPage(
        auth,
        c.req.raw,
        (csrf) => approveRequestPage({ app: auth.displayName, request: asked, csrf, error }),
        { status: 400 },
      );
    }
    const request = await requests.decide(asked.id, approve, approver);
    if (request === undefined) return notFound();
    return formPage(auth, c.req.raw, (csrf) =>
      approveRequestPage({ app: auth.displayName, request, csrf }),
    );
  });
}

function revealPage(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  return ownerOnly(auth, c, async () => {
    const secret = c.req.query('secret') ?? '';
    const token = await auth.appTokens.previewReveal(secret);
    if (typeof token === 'string') return revealProblem(token);
    return formPage(auth, c.req.raw, (csrf) =>
      revealReviewPage({ app: auth.displayName, token, secret, csrf }),
    );
  });
}

function reveal(auth: AuthService, c: Context<BrokerEnv>): Promise<Response> {
  return ownerOnly(auth, c, async () => {
    const form = await readForm(c);
    if (!auth.checkForm(c.req.raw, form)) return staleFormPage();
    const revealed = await auth.appTokens.reveal(form.secret ?? '');
    if (typeof revealed === 'string') return revealProblem(revealed);
    return pageResponse(revealedPage({ name: revealed.name, token: revealed.token }));
  });
}

// The typed code against the request's: letter case, spaces and the dash do not matter.
function sameCode(typed: string, code: string): boolean {
  const bare = (value: string) => value.toUpperCase().replace(/[^A-Z]/g, '');
  return safeEqual(bare(typed), bare(code));
}

const notFound = () =>
  pageResponse(messagePage('No such request', 'Ask for the token again from the terminal.'), {
    status: 404,
  });

function revealProblem(problem: keyof typeof revealProblems): Response {
  const { status, title, text } = revealProblems[problem];
  return pageResponse(messagePage(title, text), { status });
}
