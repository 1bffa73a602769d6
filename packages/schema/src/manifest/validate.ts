import { RuleContext, type ValidateManifestOptions } from './context.ts';
import { type ManifestResult, splitDiagnostics } from './diagnostic.ts';
import type { Manifest } from './manifest-schema.ts';
import { parseManifest } from './parse.ts';
import { checkCron } from './rules/cron.ts';
import { checkFunctions } from './rules/functions.ts';
import { checkImports } from './rules/imports.ts';
import { checkIntegrationContract } from './rules/integration.ts';
import { checkNames } from './rules/names.ts';
import { checkOrganisation } from './rules/organisation.ts';
import { checkQueues } from './rules/queues.ts';
import { checkRoutes } from './rules/routes.ts';
import { checkSearch } from './rules/search.ts';
import { checkSlots } from './rules/slots.ts';
import { checkVersions } from './rules/versions.ts';
import { sourceOf } from './source.ts';

/**
 * Checks every cross-field rule of a parsed manifest: versions and feature gates, Function names,
 * entrypoints and bundling rules, routes, queues, cron, search, secrets, email, the integration
 * contract, slots and (given the organisation's other apps) organisation-wide rules. Positions
 * come from the text when `manifest` was returned by {@link parseManifest}.
 *
 * @example
 * ```ts
 * const parsed = parseManifest(text);
 * if (parsed.manifest) {
 *   const { errors, warnings } = await validateManifest(parsed.manifest, { appDir, host });
 * }
 * ```
 */
export async function validateManifest(
  manifest: Manifest,
  options: ValidateManifestOptions,
): Promise<ManifestResult<Manifest>> {
  const ctx = new RuleContext(manifest, options, sourceOf(manifest));
  checkVersions(ctx);
  await checkFunctions(ctx);
  checkRoutes(ctx);
  await checkImports(ctx);
  checkQueues(ctx);
  checkCron(ctx);
  checkNames(ctx);
  checkSearch(ctx);
  checkIntegrationContract(ctx);
  checkSlots(ctx);
  checkOrganisation(ctx);
  const { errors, warnings } = splitDiagnostics(ctx.diagnostics);
  return { manifest, errors, warnings };
}

/** Options of {@link checkManifest}: those of parsing and of validation together. */
export interface CheckManifestOptions extends ValidateManifestOptions {
  /**
   * File name the diagnostics carry.
   * @default 'platform.yaml'
   */
  readonly file?: string;
}

/**
 * Parses and validates the text of a `platform.yaml` in one step: what `platform validate` runs.
 *
 * @example
 * ```ts
 * const { errors } = await checkManifest(text, { appDir: 'examples/todo', host });
 * ```
 */
export async function checkManifest(
  text: string,
  options: CheckManifestOptions,
): Promise<ManifestResult<Manifest>> {
  const parsed = parseManifest(text, options.file === undefined ? {} : { file: options.file });
  if (parsed.manifest === undefined) return parsed;
  return validateManifest(parsed.manifest, options);
}
