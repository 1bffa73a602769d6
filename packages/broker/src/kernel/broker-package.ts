import packageJson from '../../package.json' with { type: 'json' };

/**
 * The broker's own `package.json`, read once: its version (the CLI's own release line, apart
 * from the SDK's; printed by `platform --version`,
 * announced by the agent tools, part of a cached bundle's key), the Node range it supports
 * and the SDK copies it was released with (pinned by `platform init`). Imported as JSON, so
 * the build inlines it and `src/` and `dist/` read the same facts without a path of their own.
 *
 * @example
 * ```ts
 * console.log(`platform ${brokerPackage.version}`);
 * ```
 */
export const brokerPackage: {
  /** This broker's version: the `platform` CLI's, not the SDK's (see {@link sdk}). */
  readonly version: string;
  /** The Node versions it runs on (`engines.node`, a semver range). */
  readonly engines: { readonly node: string };
  /** The `@platform/*` versions it depends on, exactly as released together. */
  readonly sdk: {
    readonly '@platform/browser': string;
    readonly '@platform/schema': string;
    readonly '@platform/server': string;
  };
} = Object.freeze({
  version: packageJson.version,
  engines: Object.freeze({ node: packageJson.engines.node }),
  sdk: Object.freeze({
    '@platform/browser': packageJson.dependencies['@platform/browser'],
    '@platform/schema': packageJson.dependencies['@platform/schema'],
    '@platform/server': packageJson.dependencies['@platform/server'],
  }),
});
