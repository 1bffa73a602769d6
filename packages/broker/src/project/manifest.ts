import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkManifest,
  type Diagnostic,
  type Manifest,
  type OrganisationApp,
} from '@platform/schema/manifest';
import { nodeFileHost } from './file-host.ts';

/** The manifest file of every app. */
export const MANIFEST_FILE = 'platform.yaml';

/** platform.yaml of one app, checked the way `platform validate` checks it. */
export interface LoadedManifest {
  /** The manifest with defaults applied; `undefined` when it could not be parsed. */
  readonly manifest: Manifest | undefined;
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
}

/**
 * Reads and validates `<appDir>/platform.yaml` (structure, cross-field rules and Function files),
 * and with `organisation`, the checks across the organisation's apps.
 */
export async function loadManifest(
  appDir: string,
  organisation?: readonly OrganisationApp[],
): Promise<LoadedManifest> {
  const text = await readFile(join(appDir, MANIFEST_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) {
    const missing: Diagnostic = {
      code: 'MANIFEST_NOT_FOUND',
      message: `No ${MANIFEST_FILE} in ${appDir}; create one (see docs/manifest.md) or pass the app directory.`,
      path: '',
      file: MANIFEST_FILE,
      line: 0,
      column: 0,
      severity: 'error',
    };
    return { manifest: undefined, errors: [missing], warnings: [] };
  }
  const result = await checkManifest(text, {
    file: MANIFEST_FILE,
    appDir,
    host: nodeFileHost,
    ...(organisation ? { organisation: { apps: organisation } } : {}),
  });
  return { manifest: result.manifest, errors: result.errors, warnings: result.warnings };
}
