import { expect } from 'vitest';
import {
  checkManifest,
  type Diagnostic,
  type FileHost,
  type ManifestDiagnosticCode,
  type OrganisationApp,
} from '../../src/manifest/index.ts';

/** The marker that shows, inside a test manifest, where a diagnostic must point. */
export const MARK = '👉';

/** A file host over an in-memory map of app-relative paths (appDir is always `app`). */
export function memoryHost(files: Record<string, string>): FileHost {
  const strip = (path: string) => path.replace(/^app\//, '');
  return {
    readFile: async (path) => files[strip(path)],
    exists: async (path) => Object.hasOwn(files, strip(path)),
  };
}

/** Entry files of the functions BASE declares. */
export const baseFiles: Record<string, string> = {
  'functions/worker/index.ts': 'export default {};\n',
  'functions/api/index.ts': 'export default {};\n',
  'functions/public/index.ts': 'export default {};\n',
};

/** A valid manifest head with a system, a user and a public Function. */
export const BASE = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
functions:
  - name: worker
    entrypoint: functions/worker/index.ts
    access: system
  - name: api
    entrypoint: functions/api/index.ts
    access: user
  - name: site
    entrypoint: functions/public/index.ts
    access: public
`;

/** Line and column (one-based) of the marker in `text`, and the text without it. */
export function unmark(text: string): { text: string; line: number; column: number } {
  const offset = text.indexOf(MARK);
  if (offset === -1) throw new Error('test manifest has no marker');
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  return {
    text: before + text.slice(offset + MARK.length),
    line: lines.length,
    column: lines[lines.length - 1]!.length + 1,
  };
}

/** Parses and validates `text` as app `app` with `files`. */
export async function run(
  text: string,
  options: { files?: Record<string, string>; organisation?: OrganisationApp[] } = {},
) {
  return checkManifest(text, {
    appDir: 'app',
    host: memoryHost({ ...baseFiles, ...options.files }),
    ...(options.organisation ? { organisation: { apps: options.organisation } } : {}),
  });
}

/**
 * Asserts that `marked` (a manifest with one {@link MARK}) yields exactly one diagnostic with
 * `code`, at `path`, on the marker's line and column, and returns it.
 */
export async function expectOne(
  marked: string,
  code: ManifestDiagnosticCode,
  path: string,
  options: { files?: Record<string, string>; organisation?: OrganisationApp[] } = {},
): Promise<Diagnostic> {
  const { text, line, column } = unmark(marked);
  const result = await run(text, options);
  const all = [...result.errors, ...result.warnings];
  const matching = all.filter((d) => d.code === code);
  expect(matching, JSON.stringify(all, null, 2)).toHaveLength(1);
  const found = matching[0]!;
  expect({ code: found.code, path: found.path, line: found.line, column: found.column }).toEqual({
    code,
    path,
    line,
    column,
  });
  expect(found.message.length).toBeGreaterThan(20);
  return found;
}
