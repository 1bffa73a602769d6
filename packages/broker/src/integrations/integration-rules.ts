import { PlatformError } from '@platform/errors';
import type { IntegrationContract, SlotDeclaration } from '@platform/schema/manifest';
import type { Authority } from '../org/authority.ts';
import type { Binding } from './bindings.ts';
import type { Connection, ConnectionKind } from './connections.ts';

const denied = (message: string, rule: string) =>
  new PlatformError({ code: 'PERMISSION_DENIED', message, details: { rule } });

/**
 * The authority rules of spec 5.4, read live from the organisation's facts on every check
 * (docs/integrations.md). Each refusal is `PERMISSION_DENIED` naming the rule in
 * `details.rule`, and is raised before anything is written.
 */
export class IntegrationRules {
  readonly #authority: Authority;

  constructor(authority: Authority) {
    this.#authority = authority;
  }

  /**
   * May `actorId` create a `kind` connection to the integration of `providerAppId`? A personal
   * connection: any member who may Use the provider app; an organisation connection: an
   * organisation administrator.
   */
  async checkCreate(actorId: string, kind: ConnectionKind, providerAppId: string): Promise<void> {
    if (!(await this.#authority.isMember(actorId))) {
      throw denied('Only members of the organisation connect integrations.', 'member');
    }
    if (kind === 'organisation' && !(await this.#authority.isAdministrator(actorId))) {
      throw denied(
        'Only organisation administrators create organisation connections.',
        'organisation-connection-administrator',
      );
    }
    if (!(await this.#authority.mayUse(providerAppId, actorId))) {
      throw denied(
        `You are not in the Use audience of ${providerAppId}, the app that provides this integration.`,
        'provider-use',
      );
    }
  }

  /**
   * May `actorId` replace the credentials of, or remove, `connection`? Its owner for a personal
   * connection; only organisation administrators for an organisation connection.
   */
  async checkManage(actorId: string, connection: Connection): Promise<void> {
    if (connection.kind === 'personal') {
      if (connection.ownerAccountId !== actorId) {
        throw denied('Only its owner manages a personal connection.', 'personal-owner');
      }
      return;
    }
    if (!(await this.#authority.isAdministrator(actorId))) {
      throw denied(
        'Only organisation administrators replace or remove an organisation connection.',
        'organisation-connection-administrator',
      );
    }
  }

  /**
   * May `actorId` bind `connection` into `slot` of `consumerAppId`? For an `app` slot: a
   * personal connection only by its owner, an organisation connection by anyone who may Use
   * the provider app, and in both cases only into an app the actor administers. For a
   * `calling_user` slot: a person binds only their own personal connection. Answers the
   * capabilities the binding grants: those both the slot and the contract declare.
   */
  async checkBind(
    actorId: string,
    connection: Connection,
    consumer: { readonly appId: string; readonly slotName: string; readonly slot: SlotDeclaration },
    contract: IntegrationContract,
  ): Promise<string[]> {
    const { slot } = consumer;
    if (slot.integration !== connection.integration) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: `The slot ${consumer.slotName} uses "${slot.integration}"; the connection is for "${connection.integration}".`,
        details: { slot: consumer.slotName, connectionId: connection.id },
      });
    }
    if (!(await this.#authority.isMember(actorId))) {
      throw denied('Only members of the organisation bind integrations.', 'member');
    }
    if (slot.account === 'calling_user') {
      if (connection.kind !== 'personal' || connection.ownerAccountId !== actorId) {
        throw denied(
          `The slot ${consumer.slotName} acts for the signed-in person: bind your own personal connection.`,
          'calling-user-own-connection',
        );
      }
    } else {
      if (connection.kind === 'personal' && connection.ownerAccountId !== actorId) {
        throw denied('Only its owner binds a personal connection.', 'personal-owner');
      }
      await this.checkAdminister(actorId, consumer.appId);
      // The rule every call applies: refused now with its reason rather than accepted and
      // revoked at the first call.
      if (!(await this.#delegationHolds(connection, consumer.appId))) {
        throw denied(
          `A personal connection bound into ${consumer.appId} acts for its owner, who must be able to Edit ${consumer.appId} (its owner or an editor); you cannot, so every call would revoke the binding. Ask its owner to add you as an editor (platform app authority set editors), or bind an organisation connection.`,
          'personal-owner-edit',
        );
      }
    }
    if (!(await this.#authority.mayUse(connection.providerAppId, actorId))) {
      throw denied(
        `You are not in the Use audience of ${connection.providerAppId}, the app that provides "${connection.integration}".`,
        'provider-use',
      );
    }
    const granted = grantedCapabilities(slot, contract);
    if (granted.length === 0) {
      throw new PlatformError({
        code: 'INTEGRATION_CAPABILITY_NOT_GRANTED',
        message: `"${contract.name}" offers none of the capabilities the slot ${consumer.slotName} asks for.`,
        details: { slot: consumer.slotName },
      });
    }
    return granted;
  }

  /**
   * May `actorId` choose `connection` as the test connection of the provider app
   * `providerAppId`'s development session (spec 4.4, Appendix 1)? Someone with Edit access to the
   * provider app, choosing one of their own personal connections or an organisation connection:
   * another person's personal connection would hand them its credentials.
   */
  async checkTestConnection(
    actorId: string,
    connection: Connection,
    providerAppId: string,
  ): Promise<void> {
    if (!(await this.#authority.isMember(actorId))) {
      throw denied('Only members of the organisation choose test connections.', 'member');
    }
    if (!(await this.#authority.mayEdit(providerAppId, actorId))) {
      throw denied(
        `Choosing the test connection of ${providerAppId} needs Edit access to it.`,
        'provider-edit',
      );
    }
    if (connection.kind === 'personal' && connection.ownerAccountId !== actorId) {
      throw denied(
        'A test connection is one of your own personal connections or an organisation connection, not another person’s.',
        'personal-owner',
      );
    }
  }

  /** May `actorId` change the bindings of `appId`? Only someone who administers it. */
  async checkAdminister(actorId: string, appId: string): Promise<void> {
    if (!(await this.#authority.mayAdminister(appId, actorId))) {
      throw denied(`You do not administer ${appId}.`, 'consumer-administer');
    }
  }

  /**
   * The live checks of a call through `binding` (spec 5.4): the binding's creator may still Use
   * the provider app (otherwise the binding is suspended until they may again), and the owner
   * of a personal connection bound into an `app` slot may still Edit the consumer app (otherwise
   * the delegation ends for good: answers `'revoke'`). Answers `'ok'` or throws
   * `INTEGRATION_BINDING_REQUIRED`.
   */
  async checkLive(binding: Binding, connection: Connection): Promise<'ok' | 'revoke'> {
    const creator = binding.createdBy;
    const suspended =
      !(await this.#authority.isMember(creator)) ||
      !(await this.#authority.mayUse(connection.providerAppId, creator));
    if (
      binding.account === 'app' &&
      !(await this.#delegationHolds(connection, binding.consumerAppId))
    ) {
      return 'revoke';
    }
    if (suspended) {
      throw new PlatformError({
        code: 'INTEGRATION_BINDING_REQUIRED',
        message: `The binding of ${binding.slot} is suspended: the person who made it may no longer use ${connection.providerAppId}.`,
        details: { slot: binding.slot, reason: 'suspended' },
      });
    }
    return 'ok';
  }

  /**
   * The delegation rule of spec 5.4, one function for bind time and every call: a personal
   * connection in an `account: app` slot acts for its owner, who must be a member able to Edit
   * the consuming app. An organisation connection holds regardless.
   */
  async #delegationHolds(connection: Connection, consumerAppId: string): Promise<boolean> {
    if (connection.kind !== 'personal' || connection.ownerAccountId === null) return true;
    const owner = connection.ownerAccountId;
    return (
      (await this.#authority.isMember(owner)) &&
      (await this.#authority.mayEdit(consumerAppId, owner))
    );
  }
}

/** The capabilities a binding of `slot` grants: those the slot asks for and the contract offers. */
export function grantedCapabilities(
  slot: SlotDeclaration,
  contract: IntegrationContract,
): string[] {
  const offered = new Set(contract.capabilities.map((c) => c.name));
  return slot.capabilities.filter((name) => offered.has(name));
}
