import { PlatformError } from '@platform/errors';
import type { AgentCredentialInfo } from '../auth/agent-credentials.ts';
import type { AuthService } from '../auth/auth-service.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { parseEmail } from '../kernel/email.ts';
import { printable } from '../logs/printable.ts';
import { Memberships } from '../org/memberships.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { ONBOARDING_CONFIRM } from './onboarding-pages.ts';
import type { OnboardingProject } from './onboarding-project.ts';
import {
  ONBOARDING_HOURS,
  type OnboardingLinkProblem,
  type OnboardingRequest,
  OnboardingRequests,
} from './onboarding-requests.ts';

/** What onboarding needs from the broker it runs in. */
export interface OnboardingOptions {
  /** The sign-in whose pages confirm and launch (the project app's, or the central sign-in). */
  readonly auth: AuthService;
  /** The database that holds the accounts (the central store, or the app's own when alone). */
  readonly accounts: Database;
  readonly outbox: Outbox;
  readonly clock: Clock;
  readonly print: (line: string) => void;
  /** What a request's project is here: the app served, or one to be deployed. */
  readonly project: OnboardingProject;
}

/** What the agent learns from `start_onboarding`. */
export interface OnboardingAnswer {
  readonly requestId: string;
  readonly state: OnboardingRequest['state'];
  readonly expiresAt: string;
  /** Only when the request is made: what the agent finishes it with. */
  readonly claimSecret?: string;
  /** Only when the agent finishes: its credential, once (docs/agents.md). */
  readonly agentCredential?: AgentCredentialInfo & { readonly token: string };
}

/**
 * Agent-created accounts (spec 5.2): the agent starts onboarding an address to a project (an
 * app id); a new address gets a provisional identity and a project-aware confirmation email, an
 * existing account an approval email; the person confirms on the sign-in's pages, sets up a
 * company, and the agent finishes to receive its credential. What the project is (the app
 * served, or one to be deployed) is the {@link OnboardingProject}'s. The pages are in
 * `onboarding-routes.ts`.
 */
export class Onboarding {
  readonly requests: OnboardingRequests;
  readonly project: OnboardingProject;
  readonly #o: OnboardingOptions;

  constructor(options: OnboardingOptions) {
    this.#o = options;
    this.project = options.project;
    this.requests = new OnboardingRequests(options.accounts, options.clock);
  }

  /**
   * Starts onboarding `email` to the project `appId`: `INVALID_INPUT` for an address that is
   * not one, and the project's refusals of the app id (malformed, another app, taken). The email
   * link goes to the outbox and the terminal; the agent gets the request's id and claim secret,
   * never a link or a session.
   */
  async start(
    appId: string | undefined,
    email: unknown,
    request: Request,
  ): Promise<OnboardingAnswer> {
    const project = this.project.appId(appId);
    const address = parseEmail(email);
    if (address === undefined) {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'email must be the address of the person the project is for.',
        details: { field: 'email' },
      });
    }
    // Before any account or request is made: without mail nobody could confirm it.
    this.#o.outbox.requireDelivery();
    await this.project.requireFree(project, address);
    const { auth } = this.#o;
    const existing = await auth.account(address);
    const account = existing ?? (await auth.provisionalAccount(address));
    const made = await this.requests.create({
      appId: project,
      email: address,
      accountId: account.id,
      kind: existing === undefined ? 'new' : 'existing',
    });
    const url = `${auth.publicOrigin(request)}${ONBOARDING_CONFIRM}?token=${made.linkToken}`;
    const subject =
      existing === undefined
        ? `Confirm your email to start ${project}`
        : `Approve a coding agent for ${project}`;
    const why =
      existing === undefined
        ? `A coding agent started the project ${project} for this address.`
        : `A coding agent asks to work on the project ${project} for your account.`;
    await this.#o.outbox.capture(
      {
        from: 'auth',
        to: address,
        subject,
        text: `${why} Open ${url} and confirm within ${ONBOARDING_HOURS} hours; the link works once.\nIf you did not ask for this, ignore this email: nothing happens.`,
      },
      ['auth'],
    );
    // Development email's link only: a link sent for real is never printed in a log.
    if (this.#o.outbox.capturing)
      this.#o.print(printable(`[auth] ${subject} (${address}): ${url}`));
    const { id, state, expiresAt } = made.request;
    return { requestId: id, state, expiresAt, claimSecret: made.claimSecret };
  }

  /**
   * The agent's return to a request of the project `appId`: the request as it stands, and once
   * it is `ready`, the hand-over and the agent's credential, exactly once. A request of another
   * project is `ONBOARDING_REQUEST_NOT_FOUND`.
   */
  async finish(
    appId: string | undefined,
    requestId: string,
    claimSecret: unknown,
  ): Promise<OnboardingAnswer> {
    const project = this.project.appId(appId);
    if (typeof claimSecret !== 'string') {
      throw new PlatformError({
        code: 'INVALID_INPUT',
        message: 'claimSecret is the secret start_onboarding answered.',
        details: { field: 'claimSecret' },
      });
    }
    const { auth } = this.#o;
    const { request, handed } = await this.requests.finish(
      project,
      requestId,
      claimSecret,
      async (ready, tx) => {
        await this.project.claim(ready, tx);
        return auth.agentCredentials.issue(ready.accountId, ready.appId, 'onboarding', tx);
      },
    );
    if (handed !== undefined) await this.project.handOver(request);
    return {
      requestId: request.id,
      state: request.state,
      expiresAt: request.expiresAt,
      ...(handed === undefined ? {} : { agentCredential: handed }),
    };
  }

  /** The explicit confirmation of the email link: the request as it now stands, or why not. */
  useLink(token: string): Promise<OnboardingRequest | OnboardingLinkProblem> {
    return this.requests.useLink(token, (accountId, tx) => this.project.inCompany(accountId, tx));
  }

  /**
   * The organisation's company name, once someone set it up (or the service did: `platform
   * serve`'s organisation).
   */
  async company(): Promise<string | undefined> {
    const { rows } = await this.#o.accounts.query<{ name: string }>(
      'SELECT name FROM platform.organisation_profile',
    );
    return rows[0]?.name ?? this.project.organisation;
  }

  /**
   * Company setup (spec 5.2.2): names the company when nobody has yet (1 to 100 characters,
   * `INVALID_INPUT` otherwise), or accepts the invitation into the one set up; either way the
   * person's account joins the organisation, leaving its personal company
   * (docs/organisations.md).
   */
  async setUpCompany(request: OnboardingRequest, name: string | undefined): Promise<void> {
    if ((await this.company()) === undefined) {
      const trimmed = name?.trim() ?? '';
      if (trimmed.length === 0 || trimmed.length > 100) {
        throw new PlatformError({
          code: 'INVALID_INPUT',
          message: 'A company name has 1 to 100 characters.',
          details: { field: 'name' },
        });
      }
      await this.#o.accounts.query(
        `INSERT INTO platform.organisation_profile (name, set_up_by, set_up_at)
         VALUES ($1, $2, $3) ON CONFLICT (only_row) DO NOTHING`,
        [trimmed, request.accountId, this.#o.clock.now()],
      );
    }
    await new Memberships(this.#o.accounts, this.#o.clock).join(request.accountId);
    await this.requests.companySetUp(request.id);
  }
}
