import type { SourceLocator } from './locate.ts';
import type { Manifest } from './manifest-schema.ts';

/** Where a parsed manifest came from, so later checks can point at lines and columns. */
export interface ManifestSource {
  /** File name diagnostics show, e.g. `platform.yaml`. */
  readonly file: string;
  /** Finds positions in the YAML text. */
  readonly locator: SourceLocator;
}

// Keyed by the manifest object parseManifest returned, so validateManifest(manifest) keeps the
// simple signature and still reports positions.
const sources = new WeakMap<Manifest, ManifestSource>();

/** Records the source of a manifest returned by parseManifest. */
export function rememberSource(manifest: Manifest, source: ManifestSource): void {
  sources.set(manifest, source);
}

/** The source of a manifest returned by parseManifest, if any. */
export function sourceOf(manifest: Manifest): ManifestSource | undefined {
  return sources.get(manifest);
}
