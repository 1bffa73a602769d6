import type { AgentActor } from '../http/broker-env.ts';
import { AGENT_CREDENTIAL_PREFIX, type AgentCredentials } from './agent-credentials.ts';
import type { AgentAuthority } from './auth-options.ts';

/**
 * Which agents may act on one app. An agent credential counts only while it is live, was made
 * for this app, and its account may still Edit the app, asked again on every request so that a
 * revoked role takes effect at once. Who may Edit comes from the organisation's rules when the
 * broker passes them (`authority`); an app alone lets only its owner's agents in.
 */
export class AgentAccess {
  readonly #credentials: AgentCredentials;
  readonly #appId: string;
  readonly #authority: AgentAuthority;

  /**
   * @param authority - the organisation's rules; `undefined` for an app alone.
   * @param isOwner - whether an account is this app's owner, the rule an app alone applies.
   */
  constructor(
    credentials: AgentCredentials,
    appId: string,
    authority: AgentAuthority | undefined,
    isOwner: (accountId: string) => Promise<boolean>,
  ) {
    this.#credentials = credentials;
    this.#appId = appId;
    this.#authority = authority ?? { mayEdit: isOwner, owns: isOwner };
  }

  /**
   * The agent behind the credential `value`, or `undefined` when it does not count here.
   * `owns` says whether the account owns the app (its agent may bind connections).
   */
  async agentFor(value: string): Promise<AgentActor | undefined> {
    if (!value.startsWith(AGENT_CREDENTIAL_PREFIX)) return undefined;
    const credential = await this.#credentials.verify(value);
    if (credential === undefined || credential.appId !== this.#appId) return undefined;
    if (!(await this.#authority.mayEdit(credential.accountId))) return undefined;
    return {
      accountId: credential.accountId,
      credentialId: credential.id,
      owns: await this.#authority.owns(credential.accountId),
    };
  }

  /** Whether the account may approve an agent credential for this app (Edit access). */
  async mayApprove(accountId: string): Promise<boolean> {
    return this.#authority.mayEdit(accountId);
  }
}
