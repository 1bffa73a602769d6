import { PlatformError } from '@platform/errors';
import type { IntegrationContract, SlotDeclaration } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import type { Binding, Bindings } from './bindings.ts';
import type { ConnectLink, ConnectLinks } from './connect-links.ts';
import type { Connection, Connections, OAuthGrant } from './connections.ts';
import { grantedCapabilities, type IntegrationRules } from './integration-rules.ts';

/**
 * A connect link as it is used: the page's link, or the one an OAuth sign-in carries, which
 * keeps no expiry of its own.
 */
export type UsedLink = Omit<ConnectLink, 'expiresAt'>;

/** What using a connect link needs. */
export interface LinkUse {
  readonly central: Database;
  readonly connections: Connections;
  readonly bindings: Bindings;
  readonly links: ConnectLinks;
  readonly rules: IntegrationRules;
  /** The slot `slot` of the app `appId`; throws when the app declares no such slot. */
  readonly slotOf: (appId: string, slot: string) => SlotDeclaration;
}

/** What a connect link stored: the connection and the binding made with it. */
export interface Stored {
  readonly connection: Connection;
  readonly binding: Binding | null;
}

/** What else storing a link's use takes, besides the link and the entered values. */
export interface StoreExtra {
  /** The page's link token, consumed in the same transaction; absent after an OAuth sign-in. */
  readonly token?: string;
  /** The id reserved for the new connection when the sign-in began. */
  readonly id?: string;
  /** The tokens an OAuth sign-in obtained. */
  readonly grant?: OAuthGrant;
}

/** The error for a connect link that was used already or has expired. */
export function linkUnusable(): PlatformError {
  return new PlatformError({
    code: 'INVALID_REQUEST',
    message: 'This connect link was used already or has expired; ask for a new one.',
    details: { reason: 'link-unusable' },
  });
}

/**
 * Checks the rules a connect link's use must pass, again at the moment of use: the authority of
 * the person who asked for it may have changed since the link was made.
 */
export async function recheckLink(
  use: LinkUse,
  link: UsedLink,
  contract: IntegrationContract,
): Promise<void> {
  const { connections, rules } = use;
  if (link.connectionId !== null) {
    await rules.checkManage(link.accountId, await connections.get(link.connectionId));
    return;
  }
  await rules.checkCreate(link.accountId, link.kind, link.providerAppId);
  const bind = link.bind;
  if (bind) {
    // The rules read the new connection's owner and provider, which the link fixes already.
    await rules.checkBind(
      link.accountId,
      provisional(link),
      { appId: bind.appId, slotName: bind.slot, slot: use.slotOf(bind.appId, bind.slot) },
      contract,
    );
  }
}

/**
 * Stores what a connect link allowed, in one transaction so that a failure leaves nothing half
 * done: the connect link consumed (`extra.token`), the connection created or its credentials
 * replaced, and the slot bound.
 */
export function storeLink(
  use: LinkUse,
  link: UsedLink,
  contract: IntegrationContract,
  values: Readonly<Record<string, string>>,
  extra: StoreExtra,
): Promise<Stored> {
  const { connections, bindings, links } = use;
  return use.central.transaction(async (tx) => {
    if (extra.token !== undefined && !(await links.consume(extra.token, tx))) {
      throw linkUnusable();
    }
    if (link.connectionId !== null) {
      const connection = await connections.replaceValues(
        link.connectionId,
        values,
        extra.grant,
        tx,
      );
      return { connection, binding: null };
    }
    const connection = await connections.create(
      {
        id: extra.id,
        integration: link.integration,
        providerAppId: link.providerAppId,
        kind: link.kind,
        createdBy: link.accountId,
        values,
        grant: extra.grant,
      },
      tx,
    );
    const bind = link.bind;
    if (!bind) return { connection, binding: null };
    const slot = use.slotOf(bind.appId, bind.slot);
    const binding = await bindings.bind(
      {
        consumerAppId: bind.appId,
        slot: bind.slot,
        account: slot.account,
        personAccountId: slot.account === 'calling_user' ? link.accountId : null,
        connectionId: connection.id,
        capabilities: grantedCapabilities(slot, contract),
        createdBy: link.accountId,
      },
      tx,
    );
    return { connection, binding };
  });
}

/** The connection a link will create, as the rules see it before it exists. */
function provisional(link: UsedLink): Connection {
  const now = new Date().toISOString();
  return {
    id: '(new)',
    integration: link.integration,
    providerAppId: link.providerAppId,
    kind: link.kind,
    ownerAccountId: link.kind === 'personal' ? link.accountId : null,
    createdBy: link.accountId,
    condition: 'active',
    createdAt: now,
    updatedAt: now,
  };
}
