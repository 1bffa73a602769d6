import { LineCounter, parseDocument } from 'yaml';
import {
  type Diagnostic,
  diagnostic,
  type ManifestResult,
  splitDiagnostics,
} from './diagnostic.ts';
import { issueToDiagnostics } from './issues.ts';
import { SourceLocator } from './locate.ts';
import { type Manifest, manifestSchema } from './manifest-schema.ts';
import { rememberSource } from './source.ts';

/** Options of {@link parseManifest}. */
export interface ParseManifestOptions {
  /**
   * File name the diagnostics carry.
   * @default 'platform.yaml'
   */
  readonly file?: string;
}

/**
 * Parses the text of a `platform.yaml`: YAML syntax, then the structure of every field (unknown
 * fields, types, formats, ranges), applying defaults. Cross-field rules (Function references,
 * versions, routes, files) are {@link validateManifest}'s job.
 *
 * @example
 * ```ts
 * const { manifest, errors } = parseManifest(text, { file: 'platform.yaml' });
 * if (manifest) console.log(manifest.functions.map((f) => f.name));
 * ```
 */
export function parseManifest(
  text: string,
  options: ParseManifestOptions = {},
): ManifestResult<Manifest> {
  const file = options.file ?? 'platform.yaml';
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locator = new SourceLocator(doc, lineCounter);
  const found: Diagnostic[] = [];

  for (const error of doc.errors) {
    const { line, column } = locator.offset(error.pos[0]);
    const code = error.code === 'DUPLICATE_KEY' ? 'YAML_DUPLICATE_KEY' : 'YAML_SYNTAX_ERROR';
    const message = error.message.split('\n')[0] ?? error.message;
    found.push(
      diagnostic(code, `${message}.`.replace(/\.\.$/, '.'), { path: '', file, line, column }),
    );
  }
  if (found.length > 0) return { manifest: undefined, ...splitDiagnostics(found) };

  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || data === undefined) {
    found.push(
      diagnostic(
        'MANIFEST_EMPTY',
        `${file} is empty; it needs at least schemaVersion and runtime.sdk.version.`,
        {
          path: '',
          file,
          line: 1,
          column: 1,
        },
      ),
    );
    return { manifest: undefined, ...splitDiagnostics(found) };
  }

  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) {
    const ctx = { schema: manifestSchema, data, file, locator };
    for (const issue of parsed.error.issues) found.push(...issueToDiagnostics(issue, ctx));
    return { manifest: undefined, ...splitDiagnostics(found) };
  }
  rememberSource(parsed.data, { file, locator });
  return { manifest: parsed.data, errors: [], warnings: [] };
}
