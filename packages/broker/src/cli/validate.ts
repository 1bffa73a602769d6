import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import {
  type Diagnostic,
  formatDiagnostic,
  type OrganisationApp,
  parseManifest,
} from '@platform/schema/manifest';
import { loadManifest, MANIFEST_FILE } from '../project/manifest.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform validate [appDir] [--json] [--organisation <appDir>]...

Checks <appDir>/platform.yaml (default: the current directory) and the Function files it names.
Prints diagnostics as file:line:column severity CODE message, exits 1 on errors, 0 otherwise.

Options:
  --json                  Print { ok, appDir, errors, warnings } as JSON instead.
  --organisation <dir>    Another app of the organisation (repeatable), for integration checks.
  -h, --help              Show this help.`;

/** Result of validating one app, as `--json` prints it. */
export interface ValidateReport {
  /** True when there are no errors (warnings allowed). */
  readonly ok: boolean;
  /** Absolute app directory. */
  readonly appDir: string;
  /** Errors; each `file` is relative to `appDir`. */
  readonly errors: Diagnostic[];
  /** Warnings; each `file` is relative to `appDir`. */
  readonly warnings: Diagnostic[];
}

/** Loads the other organisation apps given with --organisation; throws a readable Error. */
async function loadOrganisation(dirs: readonly string[], cwd: string): Promise<OrganisationApp[]> {
  const apps: OrganisationApp[] = [];
  for (const dir of dirs) {
    const path = resolve(cwd, dir, MANIFEST_FILE);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) throw new Error(`--organisation ${dir}: ${path} not found`);
    const { manifest, errors } = parseManifest(text);
    if (manifest === undefined) {
      throw new Error(
        `--organisation ${dir}: its platform.yaml has ${errors.length} error(s); run platform validate ${dir}`,
      );
    }
    apps.push({ name: relative(cwd, resolve(cwd, dir)) || '.', manifest });
  }
  return apps;
}

/** Validates one app directory. */
export async function validateApp(
  appDir: string,
  organisation?: readonly OrganisationApp[],
): Promise<ValidateReport> {
  const { errors, warnings } = await loadManifest(appDir, organisation);
  return { ok: errors.length === 0, appDir, errors: [...errors], warnings: [...warnings] };
}

/** `platform validate [appDir] [--json]`: a thin command over the manifest validator. */
export const validateCommand = defineCommand({
  name: 'validate',
  summary: 'Check platform.yaml and the Function files it names.',
  usage,
  options: {
    json: { type: 'boolean', default: false },
    organisation: { type: 'string', multiple: true },
  },
  maxPositionals: 1,
  async run(parsed, io) {
    const appDir = resolve(io.cwd, parsed.positionals[0] ?? '.');
    let organisation: OrganisationApp[] | undefined;
    try {
      const dirs = parsed.values.organisation ?? [];
      organisation = dirs.length > 0 ? await loadOrganisation(dirs, io.cwd) : undefined;
    } catch (error) {
      io.stderr(`platform validate: ${(error as Error).message}`);
      return exitCodes.usage;
    }
    const report = await validateApp(appDir, organisation);
    if (parsed.values.json) {
      io.stdout(JSON.stringify(report, null, 2));
    } else {
      const shown = (d: Diagnostic) => relative(io.cwd, resolve(appDir, d.file)) || d.file;
      for (const d of [...report.errors, ...report.warnings])
        io.stdout(formatDiagnostic(d, shown(d)));
      const file = relative(io.cwd, resolve(appDir, MANIFEST_FILE));
      const counts = `${plural(report.errors.length, 'error')}, ${plural(report.warnings.length, 'warning')}`;
      io.stdout(report.ok ? `${file}: valid (${counts})` : `${file}: ${counts}`);
    }
    return report.ok ? exitCodes.ok : exitCodes.failed;
  },
});

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
