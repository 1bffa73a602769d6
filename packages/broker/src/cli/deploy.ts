import { resolve } from 'node:path';
import { PlatformError } from '@platform/errors';
import { formatDiagnostic } from '@platform/schema/manifest';
import { OWNER_API_PREFIX } from '../http/paths.ts';
import { APP_ID_PATTERN, loadAppId } from '../project/app-id.ts';
import type { DeploymentView } from '../serve/deployment-routes.ts';
import type { BuiltDeployment } from './build-deployment.ts';
import { describeFailure } from './dev-client.ts';
import { type CliIO, defineCommand, exitCodes } from './io.ts';
import { chosenBase, store, storedLoginAccount } from './login.ts';

const common = `  --to <base_url>  The service (platform login); may be left out when signed in to one only.
  --app <id>       The app id, its address <id>.<base domain> (default: the id in
                   <dir>/.platform/app.json, else one made from the folder's name).`;

const deployUsage = `Usage: platform deploy [dir] [--to <base_url>] [--app <id>]

Builds a deployment of the app in <dir> (default: the current directory) on this machine and
uploads it to a service you signed in to with platform login (docs/production.md): platform.yaml
checked as platform validate checks it, each Function bundled as platform dev bundles it, and
the manifest, the bundles, migrations/*.sql and public/ packed into one archive with each file's
SHA-256. The service checks it again, runs the new migrations together in one transaction, and
makes it the app's active revision. A failing migration changes nothing and names its file and
line. The owner and editors of an app may deploy it; an organisation administrator creates a new
app with its first deployment.

Options:
${common}
  -h, --help       Show this help.`;

const listUsage = `Usage: platform deployments list [--to <base_url>] [--app <id>] [--json]

Lists an app's deployments at a service, newest first; * marks the active one.

Options:
${common}
  --json           Print the service's answer as JSON.
  -h, --help       Show this help.`;

const rollbackUsage = `Usage: platform rollback <deployment> [--to <base_url>] [--app <id>]

Makes an earlier deployment of the app active again: its code, manifest and public/ serve from
now on. Migrations are forward-only: the database keeps every migration applied since.

Options:
${common}
  -h, --help       Show this help.`;

/** The service, its account credential and the app id, or the exit code after a message. */
export async function target(
  io: CliIO,
  label: string,
  values: { to?: string | undefined; app?: string | undefined },
  appDir: string,
): Promise<{ base: string; token: string; appId: string } | number> {
  const kept = await store(io, label);
  if (typeof kept === 'number') return kept;
  const base = await chosenBase(io, label, kept, values.to);
  if (typeof base === 'number') return base;
  const token = await kept.get(storedLoginAccount(base));
  if (token === undefined) {
    io.stderr(
      `platform ${label}: Not signed in to ${base}; sign in with: platform login --to ${base}`,
    );
    return exitCodes.signedOut;
  }
  const appId = values.app ?? (await loadAppId(appDir));
  if (!APP_ID_PATTERN.test(appId)) {
    io.stderr(
      `platform ${label}: "${appId}" is not an app id: lower-case letters, digits and inner hyphens, at most 40 characters.`,
    );
    return exitCodes.usage;
  }
  return { base, token, appId };
}

/** One call to the service's owner API; a failure is a line for the terminal. */
export async function send(
  base: string,
  path: string,
  init: { method: string; token: string; body?: Uint8Array | string; contentType?: string },
): Promise<{ ok: true; body: unknown } | { ok: false; line: string; status?: number }> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: init.method,
      headers: {
        authorization: `Bearer ${init.token}`,
        ...(init.contentType ? { 'content-type': init.contentType } : {}),
      },
      ...(init.body ? { body: init.body as Uint8Array<ArrayBuffer> | string } : {}),
      redirect: 'error',
    });
  } catch (error) {
    return { ok: false, line: await describeFailure(error as Error) };
  }
  if (!response.ok) {
    return { ok: false, line: await describeFailure(response), status: response.status };
  }
  return { ok: true, body: await response.json() };
}

const deploymentsUrl = (appId: string) =>
  `${OWNER_API_PREFIX}/${encodeURIComponent(appId)}/deployments`;

/** Prints a failed call and answers its exit code (signed out for a 401). */
export const failed = (io: CliIO, label: string, answer: { line: string; status?: number }) => {
  io.stderr(`platform ${label}: ${answer.line}`);
  return answer.status === 401 ? exitCodes.signedOut : exitCodes.failed;
};

/** `platform deploy [dir]`. */
export const deployCommand = defineCommand({
  name: 'deploy',
  summary: 'Build the app here and deploy it to a service (platform login).',
  usage: deployUsage,
  options: { to: { type: 'string' }, app: { type: 'string' } },
  maxPositionals: 1,
  async run(parsed, io) {
    const label = 'deploy';
    const appDir = resolve(io.cwd, parsed.positionals[0] ?? '.');
    const where = await target(io, label, parsed.values, appDir);
    if (typeof where === 'number') return where;
    let built: BuiltDeployment;
    try {
      // Loaded here: the bundler and the frontend's routes stay out of every other command's start.
      const { buildDeployment } = await import('./build-deployment.ts');
      built = await buildDeployment(appDir);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      io.stderr(`platform ${label}: ${error.message} (${error.code})`);
      return exitCodes.failed;
    }
    for (const warning of built.warnings) io.stderr(formatDiagnostic(warning, warning.file));
    const { counts } = built;
    io.stdout(
      `Built ${where.appId}: ${counts.functions} Function(s), ${counts.migrations} migration(s), ${counts.publicFiles} file(s) of public/, ${built.archive.byteLength} bytes. Uploading to ${where.base}…`,
    );
    const answer = await send(where.base, deploymentsUrl(where.appId), {
      method: 'POST',
      token: where.token,
      body: built.archive,
      contentType: 'application/gzip',
    });
    if (!answer.ok) return failed(io, label, answer);
    const { deployment } = answer.body as { deployment: DeploymentView };
    const applied = deployment.migrations.length;
    io.stdout(
      `Deployed ${deployment.id} of ${deployment.appId}; it is active (${applied} migration(s) in the database).`,
    );
    return exitCodes.ok;
  },
});

/** `platform deployments list`. */
export const deploymentsCommand = defineCommand({
  name: 'deployments',
  summary: "List an app's deployments at a service.",
  usage: listUsage,
  options: {
    to: { type: 'string' },
    app: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 1,
  actions: ['list'],
  async run(parsed, io, usageError) {
    const label = 'deployments list';
    if (parsed.positionals[0] !== 'list') return usageError('say: platform deployments list');
    const where = await target(io, label, parsed.values, io.cwd);
    if (typeof where === 'number') return where;
    const answer = await send(where.base, deploymentsUrl(where.appId), {
      method: 'GET',
      token: where.token,
    });
    if (!answer.ok) return failed(io, label, answer);
    const { deployments } = answer.body as { deployments: DeploymentView[] };
    if (parsed.values.json) {
      io.stdout(JSON.stringify({ deployments }, null, 2));
      return exitCodes.ok;
    }
    if (deployments.length === 0) io.stdout(`${where.appId} has no deployments.`);
    for (const one of deployments) {
      io.stdout(
        `${one.active ? '*' : ' '} ${one.id}  ${one.createdAt}  ${one.functions.length} Function(s)  ${one.migrations.length} migration(s)  sha256:${one.digest.slice(0, 12)}`,
      );
    }
    return exitCodes.ok;
  },
});

/** `platform rollback <deployment>`. */
export const rollbackCommand = defineCommand({
  name: 'rollback',
  summary: 'Make an earlier deployment of an app active again (code only).',
  usage: rollbackUsage,
  options: { to: { type: 'string' }, app: { type: 'string' } },
  maxPositionals: 1,
  async run(parsed, io, usageError) {
    const label = 'rollback';
    const id = parsed.positionals[0];
    if (id === undefined) return usageError('name the deployment (platform deployments list)');
    const where = await target(io, label, parsed.values, io.cwd);
    if (typeof where === 'number') return where;
    const answer = await send(
      where.base,
      `${deploymentsUrl(where.appId)}/${encodeURIComponent(id)}/activate`,
      { method: 'POST', token: where.token },
    );
    if (!answer.ok) return failed(io, label, answer);
    const { deployment } = answer.body as { deployment: DeploymentView };
    io.stdout(
      `${deployment.id} of ${deployment.appId} is active again. Migrations are forward-only: the database keeps those applied since.`,
    );
    return exitCodes.ok;
  },
});
