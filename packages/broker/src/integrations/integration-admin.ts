import { type JsonValue, PlatformError } from '@platform/errors';
import type { IntegrationContract, SlotDeclaration } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import { CONNECT_PAGE_PREFIX, OAUTH_CALLBACK_PATH } from '../http/paths.ts';
import { randomSecret } from '../kernel/crypto.ts';
import { checkAgentBind } from './agent-bind-rule.ts';
import type { Binding, Bindings } from './bindings.ts';
import {
  type LinkUse,
  linkUnusable,
  recheckLink,
  type Stored,
  storeLink,
} from './connect-link-use.ts';
import type { ConnectLink, ConnectLinks } from './connect-links.ts';
import { type Connection, type ConnectionKind, Connections } from './connections.ts';
import { checkCredentialValues } from './credential-values.ts';
import type { DevIntegrationModes, IntegrationMode } from './dev-integration-modes.ts';
import type { IntegrationRules } from './integration-rules.ts';
import { authorizationRequest, type OAuthStates } from './oauth-states.ts';
import type { OAuthTokens } from './oauth-tokens.ts';
import { findPublisher, type ProviderApp } from './provider-app.ts';

/** What the management of connections and bindings needs. */
export interface IntegrationAdminOptions {
  readonly central: Database;
  readonly connections: Connections;
  readonly bindings: Bindings;
  readonly links: ConnectLinks;
  readonly rules: IntegrationRules;
  readonly modes: DevIntegrationModes;
  /** The organisation's apps with the platform.yaml each serves now. */
  readonly apps: () => readonly ProviderApp[];
  /** `{base_url}`, where the connect page and the OAuth callback are served. */
  readonly baseUrl: () => string;
  readonly states: OAuthStates;
  readonly tokens: OAuthTokens;
  /** Fake and live modes exist in development only. */
  readonly environment: 'development' | 'production';
}

/** One declared slot of an app and the mode its operation calls are answered in now. */
export interface DevSlotMode {
  readonly slot: string;
  readonly integration: string;
  readonly account: SlotDeclaration['account'];
  readonly mode: IntegrationMode;
}

const fail = (code: string, message: string, details?: Record<string, JsonValue>) =>
  new PlatformError({ code, message, ...(details ? { details } : {}) });

/**
 * Connections and bindings as people manage them (docs/integrations.md): one-time links to the
 * page where credentials are entered, the page's submission, binding and unbinding slots, and
 * the development session's live mode and test connection. Every change is checked against
 * the rules of spec 5.4 before anything is written.
 */
export class IntegrationAdmin {
  readonly #o: IntegrationAdminOptions;
  readonly #use: LinkUse;

  constructor(options: IntegrationAdminOptions) {
    this.#o = options;
    this.#use = { ...options, slotOf: (appId, slot) => this.slotOf(appId, slot) };
  }

  /** The contract `name` and the app publishing it now; `INTEGRATION_NOT_FOUND` otherwise. */
  published(name: string): { provider: ProviderApp; contract: IntegrationContract } {
    const found = findPublisher(this.#o.apps(), name);
    if (found) return found;
    throw fail('INTEGRATION_NOT_FOUND', `No app of the organisation publishes "${name}".`, {
      integration: name,
    });
  }

  /** The contract the app `appId` publishes; `INTEGRATION_NOT_FOUND` when it publishes none. */
  publishedBy(appId: string): IntegrationContract {
    const contract = this.#o.apps().find((app) => app.appId === appId)?.manifest
      .provides?.integration;
    if (!contract) {
      throw fail('INTEGRATION_NOT_FOUND', `The app ${appId} publishes no integration.`, { appId });
    }
    return contract;
  }

  /** The environment this broker runs in: only development switches slots live or fake. */
  get environment(): 'development' | 'production' {
    return this.#o.environment;
  }

  /**
   * The app's declared slots with the mode each answers in now: `live` or `fake` in development
   * (a `calling_user` slot always fake), `live` for every slot in production.
   */
  slotModes(appId: string): DevSlotMode[] {
    const app = this.#o.apps().find((one) => one.appId === appId);
    return Object.entries(app?.manifest.integrations ?? {}).map(([slot, declared]) => ({
      slot,
      integration: declared.integration,
      account: declared.account,
      mode: this.#o.environment === 'development' ? this.#o.modes.mode(appId, slot) : 'live',
    }));
  }

  /** The slot `slot` of the app `appId`; `INTEGRATION_SLOT_NOT_DECLARED` otherwise. */
  slotOf(appId: string, slot: string): SlotDeclaration {
    const app = this.#o.apps().find((one) => one.appId === appId);
    if (!app) throw fail('APP_NOT_FOUND', `The organisation has no app "${appId}".`, { appId });
    const declared = app.manifest.integrations[slot];
    if (!declared) {
      throw fail(
        'INTEGRATION_SLOT_NOT_DECLARED',
        `${appId} declares no integration slot "${slot}".`,
        { appId, slot },
      );
    }
    return declared;
  }

  /**
   * A one-time link to the page where `actorId` enters the credentials of a new `kind`
   * connection to the integration `providerAppId` publishes (and binds it into `bind`), or of
   * `connectionId`, whose credentials it replaces.
   */
  async createLink(
    actorId: string,
    request: {
      readonly providerAppId: string;
      readonly kind: ConnectionKind;
      readonly connectionId?: string | undefined;
      readonly bind?: { readonly appId: string; readonly slot: string } | undefined;
    },
  ): Promise<{ url: string; expiresAt: string }> {
    const contract = this.publishedBy(request.providerAppId);
    let kind = request.kind;
    if (request.connectionId !== undefined) {
      const connection = await this.#o.connections.get(request.connectionId);
      await this.#o.rules.checkManage(actorId, connection);
      kind = connection.kind;
    } else {
      await this.#o.rules.checkCreate(actorId, kind, request.providerAppId);
    }
    if (request.bind) this.slotOf(request.bind.appId, request.bind.slot);
    const { token, expiresAt } = await this.#o.links.create({
      providerAppId: request.providerAppId,
      integration: contract.name,
      kind,
      accountId: actorId,
      connectionId: request.connectionId ?? null,
      bind: request.bind ?? null,
    });
    return { url: `${this.#o.baseUrl()}${CONNECT_PAGE_PREFIX}/${token}`, expiresAt };
  }

  /** The link of `token` with its contract, for the page; `undefined` when unusable. */
  async openLink(
    token: string,
  ): Promise<{ link: ConnectLink; contract: IntegrationContract } | undefined> {
    const link = await this.#o.links.peek(token);
    if (!link) return undefined;
    return { link, contract: this.publishedBy(link.providerAppId) };
  }

  /**
   * Submits the page of `token` with the `entered` values: checks them and the rules again
   * (authority may have changed since the link was made). Without OAuth it then, in one
   * transaction, consumes the link, stores the connection (or replaces its credentials) and
   * binds the slot, if any. With OAuth it consumes the link and answers where the person signs
   * in at the provider (`redirect`), for the browser holding `browserSecret` only (the route
   * sets it in the sign-in's `oauthBrowserCookie`); {@link IntegrationAdmin.finishSignIn}
   * stores the rest.
   */
  async submit(
    token: string,
    entered: Readonly<Record<string, unknown>>,
    browserSecret?: string,
  ): Promise<Submitted> {
    const opened = await this.openLink(token);
    if (!opened) throw linkUnusable();
    const { link, contract } = opened;
    const values = checkCredentialValues(contract, entered);
    await recheckLink(this.#use, link, contract);
    const oauth = contract.authorization;
    if (!oauth)
      return { ...(await storeLink(this.#use, link, contract, values, { token })), redirect: null };
    if (browserSecret === undefined) {
      throw new TypeError('An OAuth sign-in needs the secret of the browser it is bound to');
    }
    if (!(await this.#o.links.consume(token))) throw linkUnusable();
    const codeVerifier = oauth.pkce ? randomSecret() : null;
    const state = await this.#o.states.create(
      { link, connectionId: link.connectionId ?? Connections.newId(), values, codeVerifier },
      browserSecret,
    );
    const redirect = authorizationRequest(oauth, this.redirectUri(), state, codeVerifier);
    return { redirect, state, connection: null, binding: null };
  }

  /** The OAuth redirect URI to register with providers: `{base_url}/v1/custom-integrations/oauth/callback`. */
  redirectUri(): string {
    return `${this.#o.baseUrl()}${OAUTH_CALLBACK_PATH}`;
  }

  /**
   * Completes the OAuth sign-in of `state` with the provider's `code`, in the browser that
   * started it (`browserSecret`, its cookie's value; in any other browser the sign-in is
   * refused and spent, storing nothing): takes the state (once), checks the rules again, has the provider's
   * exchange Function turn the code into tokens, and then stores the connection with them (or
   * replaces a reconnected one's, making it active) and binds the slot, if any. Nothing is
   * stored when a step fails.
   */
  async finishSignIn(
    state: string,
    code: string,
    requestId: string,
    browserSecret: string | undefined,
  ): Promise<Stored & { contract: IntegrationContract }> {
    const pending = await this.#o.states.take(state, browserSecret);
    if (pending === 'other-browser') throw otherBrowser();
    if (pending === 'unusable') throw linkUnusable();
    const { link } = pending;
    const contract = this.publishedBy(link.providerAppId);
    await recheckLink(this.#use, link, contract);
    const { provider } = this.published(contract.name);
    const grant = await this.#o.tokens.exchange(
      provider,
      contract,
      pending,
      code,
      this.redirectUri(),
      requestId,
    );
    const stored = await storeLink(this.#use, link, contract, pending.values, {
      id: pending.connectionId,
      grant,
    });
    return { ...stored, contract };
  }

  /** Ends the OAuth sign-in of `state` without storing anything (the person declined). */
  async abandonSignIn(state: string): Promise<void> {
    await this.#o.states.take(state, undefined);
  }

  /** Binds `slot` of `appId` to an existing connection, on `actorId`'s authority. */
  async bind(
    actorId: string,
    appId: string,
    slot: string,
    connectionId: string,
    agent?: { readonly owns: boolean },
  ): Promise<Binding> {
    const declared = this.slotOf(appId, slot);
    if (agent !== undefined) checkAgentBind(declared.account, slot, appId, agent.owns);
    const connection = await this.#o.connections.get(connectionId);
    const { contract } = this.published(connection.integration);
    const capabilities = await this.#o.rules.checkBind(
      actorId,
      connection,
      { appId, slotName: slot, slot: declared },
      contract,
    );
    return this.#o.bindings.bind({
      consumerAppId: appId,
      slot,
      account: declared.account,
      personAccountId: declared.account === 'calling_user' ? actorId : null,
      connectionId,
      capabilities,
      createdBy: actorId,
    });
  }

  /** Removes the binding of an `account: app` slot; only someone who administers the app may. */
  async unbind(actorId: string, appId: string, slot: string): Promise<void> {
    const declared = this.slotOf(appId, slot);
    const binding = await this.#o.bindings.find(
      appId,
      slot,
      declared.account === 'calling_user' ? actorId : null,
    );
    if (!binding) {
      throw fail('INTEGRATION_BINDING_REQUIRED', `The slot ${slot} of ${appId} is not bound.`, {
        slot,
        reason: 'unbound',
      });
    }
    if (declared.account === 'app') await this.#o.rules.checkAdminister(actorId, appId);
    await this.#o.bindings.unbind(appId, slot, binding.personAccountId);
  }

  /** May `actorId` manage `connection` (see `IntegrationRules.checkManage`)? */
  checkManage(actorId: string, connection: Connection): Promise<void> {
    return this.#o.rules.checkManage(actorId, connection);
  }

  /** Removes a connection and its bindings, on `actorId`'s authority. */
  async removeConnection(actorId: string, connectionId: string): Promise<void> {
    const connection = await this.#o.connections.get(connectionId);
    await this.#o.rules.checkManage(actorId, connection);
    await this.#o.connections.remove(connectionId);
  }

  /** Switches `slot` of `appId` live or back to fake for this development session. */
  setMode(appId: string, slot: string, mode: IntegrationMode): void {
    if (this.#o.environment !== 'development') {
      throw fail(
        'FEATURE_NOT_AVAILABLE',
        'Fake and live modes belong to development sessions; in production every call is live.',
      );
    }
    const declared = this.slotOf(appId, slot);
    if (mode === 'live' && declared.account === 'calling_user') {
      throw fail(
        'INVALID_REQUEST',
        `The slot ${slot} acts for the signed-in person; calling_user slots always answer their fakes in development.`,
        { slot },
      );
    }
    this.#o.modes.setMode(appId, slot, mode);
  }

  /**
   * Chooses the test connection of the provider app `appId` on the authority of `actorId` (spec
   * 4.4: Edit access to the provider app; a personal connection only its owner's), or clears it
   * with `null`, which needs no one's authority.
   */
  async setTestConnection(
    appId: string,
    connectionId: string | null,
    actorId: string | undefined,
  ): Promise<void> {
    const contract = this.publishedBy(appId);
    if (connectionId !== null) {
      const connection = await this.#o.connections.get(connectionId);
      if (connection.integration !== contract.name) {
        throw fail(
          'INVALID_REQUEST',
          `The connection ${connectionId} is for "${connection.integration}", not "${contract.name}".`,
          { connectionId },
        );
      }
      if (actorId === undefined) {
        throw fail('INVALID_REQUEST', 'Choosing a test connection names the member acting.', {
          field: 'actingAs',
        });
      }
      await this.#o.rules.checkTestConnection(actorId, connection, appId);
    }
    this.#o.modes.setTestConnection(appId, connectionId ?? undefined);
  }
}

/**
 * What a submitted connect page did: stored the connection, or sent the person to sign in
 * (`redirect`) with the one-time `state` of that sign-in.
 */
export type Submitted =
  | (Stored & { readonly redirect: null })
  | {
      readonly redirect: string;
      readonly state: string;
      readonly connection: null;
      readonly binding: null;
    };

const otherBrowser = () =>
  new PlatformError({
    code: 'PERMISSION_DENIED',
    message:
      'This sign-in was started in another browser, so it cannot finish here and nothing was stored. Ask for a new link and open it in the browser you sign in with.',
    details: { reason: 'other-browser' },
  });
