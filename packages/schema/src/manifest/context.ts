import type { ManifestDiagnosticCode } from './codes.ts';
import { type Diagnostic, diagnostic, formatManifestPath, type PathSegment } from './diagnostic.ts';
import type { FileHost } from './host.ts';
import type { Anchor } from './locate.ts';
import type { FunctionDeclaration, Manifest } from './manifest-schema.ts';
import type { ManifestSource } from './source.ts';
import { didYouMean } from './suggest.ts';

/** Another app of the organisation, for the organisation-level checks. */
export interface OrganisationApp {
  /** App name or id, used in messages. */
  readonly name: string;
  /**
   * Whether the app is active (deployed and not archived); inactive apps publish nothing.
   * @default true
   */
  readonly active?: boolean;
  /** Its parsed manifest. */
  readonly manifest: Manifest;
}

/** Options of {@link validateManifest}. */
export interface ValidateManifestOptions {
  /** Directory of the app; entrypoints and imports resolve against it. */
  readonly appDir: string;
  /** File access for the entrypoint and bundling checks; those checks are skipped without it. */
  readonly host?: FileHost;
  /** The other apps of the organisation; enables the organisation-level checks. */
  readonly organisation?: { readonly apps: readonly OrganisationApp[] };
}

/** What each rule receives: the manifest, lookups and a way to report. */
export class RuleContext {
  readonly manifest: Manifest;
  readonly options: ValidateManifestOptions;
  readonly diagnostics: Diagnostic[] = [];
  readonly functions = new Map<string, { declaration: FunctionDeclaration; index: number }>();
  readonly #source: ManifestSource | undefined;

  constructor(
    manifest: Manifest,
    options: ValidateManifestOptions,
    source: ManifestSource | undefined,
  ) {
    this.manifest = manifest;
    this.options = options;
    this.#source = source;
    manifest.functions.forEach((declaration, index) => {
      if (!this.functions.has(declaration.name))
        this.functions.set(declaration.name, { declaration, index });
    });
  }

  /** The manifest file name diagnostics carry. */
  get file(): string {
    return this.#source?.file ?? 'platform.yaml';
  }

  /** Reports a problem at a manifest path. */
  report(
    code: ManifestDiagnosticCode,
    path: readonly PathSegment[],
    message: string,
    anchor?: Anchor,
  ): void {
    const pos = this.#source?.locator.locate(path, anchor) ?? { line: 0, column: 0 };
    this.diagnostics.push(
      diagnostic(code, message, { path: formatManifestPath(path), file: this.file, ...pos }),
    );
  }

  /** Reports a problem inside another file (an import in a Function source). */
  reportInFile(
    code: ManifestDiagnosticCode,
    at: { file: string; line: number; column: number; path: readonly PathSegment[] },
    message: string,
  ): void {
    this.diagnostics.push(diagnostic(code, message, { ...at, path: formatManifestPath(at.path) }));
  }

  /**
   * Checks that `name` (at `path`) names a declared `system` Function. Reports
   * FUNCTION_NOT_DECLARED or `notSystem`, and returns whether the reference is sound.
   */
  requireSystemFunction(
    path: readonly PathSegment[],
    name: string,
    notSystem: ManifestDiagnosticCode,
    role: string,
  ): boolean {
    const found = this.functions.get(name);
    if (found === undefined) {
      this.report(
        'FUNCTION_NOT_DECLARED',
        path,
        `${role} "${name}" is not declared in functions[].${didYouMean(name, this.functions.keys())} Declare it with access: system.`,
      );
      return false;
    }
    if (found.declaration.access !== 'system') {
      this.report(
        notSystem,
        path,
        `${role} "${name}" must be a system Function, but functions[${found.index}] has access: ${found.declaration.access}. Set access: system on it (callers cannot invoke system Functions directly).`,
      );
      return false;
    }
    return true;
  }
}
