import { PlatformError } from '@platform/errors';
import type { IntegrationContract, Manifest } from '@platform/schema/manifest';
import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { customIntegrationsPath } from '../http/paths.ts';

/** An app of the organisation and the platform.yaml it serves now. */
export interface PublishingApp {
  readonly appId: string;
  readonly manifest: Manifest;
}

/**
 * A published integration contract as `GET /v1/apps/{appId}/custom-integrations` lists it: what
 * a consumer needs to declare a slot and a person to connect. Never the provider's Function
 * names, OAuth client id or fakes.
 */
export interface PublishedIntegration {
  readonly name: string;
  readonly title: string;
  readonly description: string | null;
  /** The app that publishes it. */
  readonly provider: { readonly appId: string };
  readonly capabilities: readonly { readonly name: string; readonly description: string }[];
  readonly operations: readonly {
    readonly name: string;
    readonly description: string;
    readonly capability: string;
  }[];
  readonly events: readonly {
    readonly type: string;
    readonly capability: string;
    readonly description: string;
  }[];
  readonly credentials: readonly {
    readonly name: string;
    readonly label: string;
    readonly secret: boolean;
    readonly optional: boolean;
  }[];
  /** `oauth2` with its scopes when people connect by signing in at the provider. */
  readonly authorization: { readonly type: 'oauth2'; readonly scopes: readonly string[] } | null;
}

function published(appId: string, contract: IntegrationContract): PublishedIntegration {
  return {
    name: contract.name,
    title: contract.title,
    description: contract.description ?? null,
    provider: { appId },
    capabilities: contract.capabilities.map(({ name, description }) => ({ name, description })),
    operations: contract.operations.map(({ name, description, capability }) => ({
      name,
      description,
      capability,
    })),
    events: (contract.events ?? []).map(({ type, capability, description }) => ({
      type,
      capability,
      description,
    })),
    credentials: contract.credentials.map(({ name, label, secret, optional }) => ({
      name,
      label,
      secret,
      optional,
    })),
    authorization: contract.authorization
      ? { type: 'oauth2', scopes: [...contract.authorization.scopes] }
      : null,
  };
}

/**
 * The integration contracts the organisation's apps publish (`provides.integration`), by name.
 * Every app of the organisation sees all of them; another organisation's never reach it (a
 * workspace is one organisation).
 */
export function publishedIntegrations(apps: readonly PublishingApp[]): PublishedIntegration[] {
  return apps
    .flatMap(({ appId, manifest }) => {
      const contract = manifest.provides?.integration;
      return contract ? [published(appId, contract)] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * `GET /v1/apps/:appId/custom-integrations` (spec 4.1): `{ integrations: PublishedIntegration[] }`,
 * the contracts visible to the app. Owner API: admitted with the dev token.
 */
export function mountCustomIntegrationRoutes(
  app: Hono<BrokerEnv>,
  options: { appId: string; apps: () => readonly PublishingApp[] },
): void {
  app.get(customIntegrationsPath, (c) => {
    const asked = c.req.param('appId');
    if (asked !== options.appId) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `This broker serves the app "${options.appId}", not "${asked}".`,
        details: { appId: asked },
      });
    }
    return c.json({ integrations: publishedIntegrations(options.apps()) });
  });
}
