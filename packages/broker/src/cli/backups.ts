import { ownerApiPaths } from '../http/paths.ts';
import { appPath, type BrokerPath, type BrokerRequest, callBroker } from './broker-call.ts';
import { failed, send, target } from './deploy.ts';
import { type CliIO, defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform backups list | create | restore <id> --yes | remove <id>  [--app <dir>] [--json]
       platform backups restore <id> --to <new app>
       platform backups schedule <hours>
       platform backups <action> --to <base_url> [--app <id>] [--into <new app>]

Backups of the app's database and of the files its rows reference, taken on demand, before a
deployment that runs migrations, and daily (docs/backups.md). restore replaces the app's data
with the backup's: the app answers APP_RESTORING meanwhile, and what was written since the backup
is gone, so it asks for --yes. restore --to <new app> restores into a new app beside the live
one, which stays as it is, and prints where the new app serves. Talks to the running platform
dev, or with --to <base_url> to an app deployed at a service you signed in to with platform
login (its owner or an organisation administrator; docs/production.md).

Options:
  --app <dir|id>    The app folder (default: the current directory); with --to <base_url>, the
                    app id (default: the id in .platform/app.json, else the folder's name).
  --yes             Confirm a restore.
  --to <app|url>    Restore into a new app with this id, beside the live one; a URL
                    (http://, https://) names the service instead.
  --into <app>      At a service: restore into a new app with this id, beside the live one.
  --json            Print the broker's answer as JSON.
  -h, --help        Show this help.`;

// A `--to` that names a service rather than the new app of a restore.
const isServiceUrl = (value: string | undefined): value is string =>
  value !== undefined && /^https?:\/\//i.test(value);

/**
 * Sends owner API calls to the running `platform dev` of `app`, or with `service` to the
 * service's `{base_url}` with `platform login`'s account credential (which forwards them to the
 * app), answering the JSON answer or the exit code of a failure it printed.
 */
async function ownerApiCaller(
  io: CliIO,
  label: string,
  values: { app?: string | undefined; service?: string | undefined },
): Promise<
  | ((path: BrokerPath, request?: BrokerRequest) => Promise<Record<string, unknown> | number>)
  | number
> {
  const appDir = values.app ?? '.';
  if (values.service === undefined) {
    return (path, request = {}) => callBroker(io, appDir, path, { ...request, label });
  }
  const where = await target(io, label, { to: values.service, app: values.app }, io.cwd);
  if (typeof where === 'number') return where;
  return async (path, request = {}) => {
    const body = request.json === undefined ? undefined : JSON.stringify(request.json);
    const answer = await send(where.base, typeof path === 'string' ? path : path(where.appId), {
      method: request.method ?? (body === undefined ? 'GET' : 'POST'),
      token: where.token,
      ...(body === undefined ? {} : { body, contentType: 'application/json' }),
    });
    return answer.ok ? (answer.body as Record<string, unknown>) : failed(io, label, answer);
  };
}

/** A backup as the owner API lists it. */
interface Backup {
  id: string;
  kind: string;
  createdAt: string;
  size: number;
  files: number;
}

const line = (b: Backup): string =>
  `${b.id}  ${b.createdAt}  ${b.kind.padEnd(10)}  ${b.size} bytes  ${b.files} file(s)`;

/** `platform backups list|create|restore <id>|remove <id>|schedule <hours>`. */
export const backupsCommand = defineCommand({
  name: 'backups',
  summary: "List, take and restore backups of the app's data (list, create, restore <id>).",
  usage,
  options: {
    app: { type: 'string' },
    yes: { type: 'boolean', default: false },
    to: { type: 'string' },
    into: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  async run(parsed, io, usageError) {
    const [action, arg] = parsed.positionals;
    const { app, json } = parsed.values;
    const label = 'backups';
    const base = ownerApiPaths.backups;
    const service = isServiceUrl(parsed.values.to) ? parsed.values.to : undefined;
    if (service === undefined && parsed.values.into !== undefined) {
      return usageError('--into names the new app at a service (--to <base_url>)');
    }
    const newApp = service === undefined ? parsed.values.to : parsed.values.into;
    const known =
      ((action === 'list' || action === 'create') && !arg) ||
      ((action === 'restore' || action === 'remove') && arg) ||
      (action === 'schedule' && arg && /^\d+$/.test(arg));
    if (!known) {
      return usageError(
        'expected list, create, restore <id> --yes, remove <id> or schedule <hours>',
      );
    }
    if (action === 'restore' && newApp === undefined && !parsed.values.yes) {
      return usageError(
        `restore replaces the app's data with backup ${arg}'s; run it again with --yes`,
      );
    }
    const call = await ownerApiCaller(io, label, { app, service });
    if (typeof call === 'number') return call;
    let answer: Record<string, unknown> | number;
    if (action === 'list') {
      answer = await call(appPath(base));
    } else if (action === 'create') {
      answer = await call(appPath(base), { json: { kind: 'manual' } });
    } else if (action === 'restore' && newApp !== undefined) {
      // Leaves the live app alone, so it needs no --yes; the broker says whether it can.
      answer = await call(appPath(`${base}/:id/restore`, { id: arg ?? '' }), {
        json: { to: newApp },
      });
    } else if (action === 'restore') {
      answer = await call(appPath(`${base}/:id/restore`, { id: arg ?? '' }), { json: {} });
    } else if (action === 'remove') {
      const done = await call(appPath(`${base}/:id`, { id: arg ?? '' }), { method: 'DELETE' });
      if (typeof done === 'number') return done;
      io.stdout(`Removed backup ${arg}.`);
      return exitCodes.ok;
    } else {
      answer = await call(appPath(`${base}/settings`), {
        method: 'PUT',
        json: { intervalSeconds: Number(arg) * 3600 },
      });
    }
    if (typeof answer === 'number') return answer;
    if (json) io.stdout(JSON.stringify(answer, null, 2));
    else if (action === 'list') {
      const backups = answer.backups as Backup[];
      if (backups.length === 0) io.stdout('No backups yet. Take one with platform backups create.');
      for (const b of backups) io.stdout(line(b));
    } else if (action === 'create') io.stdout(`Took ${line(answer.backup as Backup)}`);
    else if (action === 'restore' && newApp !== undefined) {
      const made = answer.app as { appId: string; url: string };
      io.stdout(`Restored ${line(answer.restored as Backup)}`);
      io.stdout(`into the new app ${made.appId}, serving at ${made.url}`);
      io.stdout(
        'held for inspection: its jobs, cron and Web Push do not run, and its email is only captured',
      );
    } else if (action === 'restore') io.stdout(`Restored ${line(answer.restored as Backup)}`);
    else io.stdout(`Backups are taken every ${arg} hour(s).`);
    return exitCodes.ok;
  },
});
