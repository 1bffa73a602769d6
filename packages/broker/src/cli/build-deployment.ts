import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { PlatformError } from '@platform/errors';
import { type Diagnostic, formatDiagnostic, type Manifest } from '@platform/schema/manifest';
import { FRONTEND_DIR } from '../api/frontend.ts';
import { listMigrations } from '../db/migrations.ts';
import { packDeployment } from '../deploy/archive.ts';
import { bundleFunctions } from '../functions/bundler.ts';
import { resolveSdk } from '../functions/sdk.ts';
import { loadManifest, MANIFEST_FILE } from '../project/manifest.ts';

/** A deployment built from an app folder, ready to upload. */
export interface BuiltDeployment {
  /** The gzip tar `POST /v1/apps/{appId}/deployments` takes. */
  readonly archive: Buffer;
  readonly manifest: Manifest;
  /** How many files of each kind it holds. */
  readonly counts: {
    readonly functions: number;
    readonly migrations: number;
    readonly publicFiles: number;
  };
  /** Warnings of the validator, to print. */
  readonly warnings: readonly Diagnostic[];
}

/**
 * Builds the deployment of the app in `appDir` on this machine: platform.yaml checked by the
 * validator of `platform validate` (errors refuse with `INVALID_INPUT` listing each as
 * `file:line:column`), every Function bundled by the bundler and import rules of `platform dev`
 * (a failure is its `FUNCTION_BUNDLE_FAILED` with file and line), then the manifest, the
 * bundles with their source maps, `migrations/*.sql` and every file of `public/` packed into
 * one archive with each file's SHA-256.
 */
export async function buildDeployment(appDir: string): Promise<BuiltDeployment> {
  const { manifest, errors, warnings } = await loadManifest(appDir);
  if (manifest === undefined || errors.length > 0) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `platform.yaml has ${errors.length} error(s); nothing was deployed:\n${errors
        .map((d) => formatDiagnostic(d, d.file))
        .join('\n')}`,
      details: { errors: errors.map((d) => ({ ...d })) },
    });
  }
  const work = await mkdtemp(join(tmpdir(), 'platform-deploy-'));
  try {
    const files = new Map<string, Uint8Array>();
    files.set(MANIFEST_FILE, await readFile(join(appDir, MANIFEST_FILE)));
    const sdk = resolveSdk(appDir, manifest.runtime.sdk.version);
    const outFile = (name: string) => join(work, 'bundles', `${name}.js`);
    await Promise.all(
      bundleFunctions({
        appDir,
        sdk,
        targets: manifest.functions.map((fn) => ({
          entrypoint: fn.entrypoint,
          outFile: outFile(fn.name),
        })),
      }),
    );
    for (const fn of manifest.functions) {
      files.set(`functions/${fn.name}.js`, await readFile(outFile(fn.name)));
      const map = await readFile(`${outFile(fn.name)}.map`).catch(() => undefined);
      if (map !== undefined) files.set(`functions/${fn.name}.js.map`, map);
    }
    const migrations = await listMigrations(join(appDir, 'migrations'));
    for (const name of migrations) {
      files.set(`migrations/${name}`, await readFile(join(appDir, 'migrations', name)));
    }
    const publicDir = join(appDir, FRONTEND_DIR);
    const publicFiles = await filesUnder(publicDir);
    for (const path of publicFiles) {
      files.set(
        `${FRONTEND_DIR}/${relative(publicDir, path).split(sep).join('/')}`,
        await readFile(path),
      );
    }
    const archive = await packDeployment(files, join(work, 'archive'));
    return {
      archive,
      manifest,
      counts: {
        functions: manifest.functions.length,
        migrations: migrations.length,
        publicFiles: publicFiles.length,
      },
      warnings,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Regular files under `dir`, recursively (symbolic links are left out); none when it is missing. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    },
  );
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
