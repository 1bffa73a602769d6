import { readFile, stat, writeFile } from 'node:fs/promises';
import { brokerPackage } from '../kernel/broker-package.ts';
import type { BundleResult } from './bundler.ts';

/** Bump when the bundle's shape changes (host entry, esbuild options) to drop older bundles. */
const BUNDLE_FORMAT = 4;

/** What decides whether a bundle may be reused besides its input files. */
export interface BundleKey {
  readonly entrypoint: string;
  readonly sdkDir: string;
  readonly sdkVersion: string;
  /** The pinned version the bundle reports as `PLATFORM_SDK_VERSION`. */
  readonly pinned: string;
}

interface Record {
  readonly key: string;
  readonly inputs: readonly (readonly [path: string, size: number, mtimeMs: number])[];
}

const keyText = (key: BundleKey) =>
  JSON.stringify({ ...key, format: BUNDLE_FORMAT, broker: brokerPackage.version });

const metaPath = (outFile: string) => `${outFile}.inputs.json`;

async function fingerprint(path: string): Promise<readonly [string, number, number] | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? [path, info.size, info.mtimeMs] : undefined;
}

/**
 * The bundle written earlier for `key`, when it still exists and none of its input files changed
 * (size and modification time): starting an app again then skips esbuild entirely.
 */
export async function reusableBundle(
  key: BundleKey,
  outFile: string,
): Promise<BundleResult | undefined> {
  const started = performance.now();
  const text = await readFile(metaPath(outFile), 'utf8').catch(() => undefined);
  if (text === undefined || !(await fingerprint(outFile))) return undefined;
  let record: Record;
  try {
    record = JSON.parse(text) as Record;
  } catch {
    return undefined;
  }
  if (record.key !== keyText(key)) return undefined;
  for (const [path, size, mtimeMs] of record.inputs) {
    const now = await fingerprint(path);
    if (!now || now[1] !== size || now[2] !== mtimeMs) return undefined;
  }
  return {
    outFile,
    inputs: record.inputs.map(([path]) => path),
    milliseconds: Math.round(performance.now() - started),
  };
}

/** Records a fresh bundle's inputs for {@link reusableBundle}. */
export async function rememberBundle(key: BundleKey, bundle: BundleResult): Promise<void> {
  const inputs = (await Promise.all(bundle.inputs.map(fingerprint))).filter(
    (entry) => entry !== undefined,
  );
  const record: Record = { key: keyText(key), inputs };
  await writeFile(metaPath(bundle.outFile), JSON.stringify(record));
}
