import type { Declarations } from '@platform/schema/contract';
import type { Manifest } from '@platform/schema/manifest';
import type { FunctionDeclaration } from '../functions/function-deployments.ts';
import { sdkSearchDeclarations } from '../search/search-options.ts';

/**
 * What the invocation's `declared` carries (docs/runtime-contract.md 1.1): the app's secret
 * names plus, for an integration provider, its credential names and OAuth access-token name;
 * each search's summary (`sdkSearchDeclarations`); the email aliases.
 */
export function declarationsOf(manifest: Manifest): Declarations {
  const provided = manifest.provides?.integration;
  const secrets = [
    ...manifest.secrets,
    ...(provided?.credentials ?? []).map((credential) => credential.name),
    ...(provided?.authorization ? [provided.authorization.accessToken] : []),
  ];
  return {
    secrets: [...new Set(secrets)],
    searches: sdkSearchDeclarations(manifest.data.search),
    emailAliases: manifest.email.aliases.map((alias) => alias.name),
  };
}

/** The broker's view of `functions[]`. */
export function functionsOf(manifest: Manifest): FunctionDeclaration[] {
  return manifest.functions.map((fn) => ({
    name: fn.name,
    entrypoint: fn.entrypoint,
    access: fn.access,
  }));
}
