import { ownerApiPaths } from '../http/paths.ts';
import { appPath, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform backups list | create | restore <id> --yes | remove <id>  [--app <dir>] [--json]
       platform backups restore <id> --to <new app>
       platform backups schedule <hours>

Backups of the app's database and of the files its rows reference, taken on demand, before a
deployment that runs migrations, and daily (docs/backups.md). restore replaces the app's data
with the backup's: the app answers APP_RESTORING meanwhile, and what was written since the backup
is gone, so it asks for --yes. restore --to <new app> restores into a new app beside the live
one, which stays as it is, and prints where the new app serves. Talks to the running platform
dev.

Options:
  --app <dir>     The app folder (default: the current directory).
  --yes           Confirm a restore.
  --to <app>      Restore into a new app with this id, beside the live one.
  --json          Print the broker's answer as JSON.
  -h, --help      Show this help.`;

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
    app: { type: 'string', default: '.' },
    yes: { type: 'boolean', default: false },
    to: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  async run(parsed, io, usageError) {
    const [action, arg] = parsed.positionals;
    const { app, json } = parsed.values;
    const label = 'backups';
    const base = ownerApiPaths.backups;
    let answer: Record<string, unknown> | number;
    if (action === 'list' && !arg) {
      answer = await callBroker(io, app, appPath(base), { label });
    } else if (action === 'create' && !arg) {
      answer = await callBroker(io, app, appPath(base), { json: { kind: 'manual' }, label });
    } else if (action === 'restore' && arg && parsed.values.to !== undefined) {
      // Leaves the live app alone, so it needs no --yes; the broker says whether it can.
      answer = await callBroker(io, app, appPath(`${base}/:id/restore`, { id: arg }), {
        json: { to: parsed.values.to },
        label,
      });
    } else if (action === 'restore' && arg) {
      if (!parsed.values.yes) {
        return usageError(
          `restore replaces the app's data with backup ${arg}'s; run it again with --yes`,
        );
      }
      answer = await callBroker(io, app, appPath(`${base}/:id/restore`, { id: arg }), {
        json: {},
        label,
      });
    } else if (action === 'remove' && arg) {
      const done = await callBroker<unknown>(io, app, appPath(`${base}/:id`, { id: arg }), {
        method: 'DELETE',
        label,
      });
      if (typeof done === 'number') return done;
      io.stdout(`Removed backup ${arg}.`);
      return exitCodes.ok;
    } else if (action === 'schedule' && arg && /^\d+$/.test(arg)) {
      answer = await callBroker(io, app, appPath(`${base}/settings`), {
        method: 'PUT',
        json: { intervalSeconds: Number(arg) * 3600 },
        label,
      });
    } else {
      return usageError(
        'expected list, create, restore <id> --yes, remove <id> or schedule <hours>',
      );
    }
    if (typeof answer === 'number') return answer;
    if (json) io.stdout(JSON.stringify(answer, null, 2));
    else if (action === 'list') {
      const backups = answer.backups as Backup[];
      if (backups.length === 0) io.stdout('No backups yet. Take one with platform backups create.');
      for (const b of backups) io.stdout(line(b));
    } else if (action === 'create') io.stdout(`Took ${line(answer.backup as Backup)}`);
    else if (action === 'restore' && parsed.values.to !== undefined) {
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
