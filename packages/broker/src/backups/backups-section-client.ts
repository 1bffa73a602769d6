// The console's backups, in the browser: the list, Create, and Restore behind a typed
// confirmation. Both changes go through the owner API with the console's form token.
import {
  $,
  actionCell,
  fill,
  get,
  localTime,
  row,
  run,
  type SectionScript,
  send,
} from '../pages/dashboard/dashboard-client-kit.ts';

/** A backup as the owner API lists it. */
interface Backup {
  id: string;
  kind: string;
  createdAt: string;
  size: number;
  files: number;
}

type Api = Readonly<Record<'backups', string>>;

const sizeOf = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** How long ago `iso` was, in the largest whole unit. */
function ageOf(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

// The backup the restore form is open for.
let chosen: string | undefined;

// The app's id is what the person types: it names what the restore replaces, and reads the
// same in the header and the CLI, where a backup id would be a string to copy.
const appId = (): string => document.body.dataset.app ?? '';

function openRestore(id: string): void {
  chosen = id;
  $('backup-restore-id').textContent = id;
  $('backup-restore-app').textContent = appId();
  const input = $<HTMLInputElement>('backup-restore-confirm');
  input.value = '';
  $<HTMLButtonElement>('backup-restore-button').disabled = true;
  $('backup-restore').hidden = false;
  input.focus();
}

function closeRestore(): void {
  chosen = undefined;
  $('backup-restore').hidden = true;
}

async function loadBackups(api: Api): Promise<void> {
  const { backups } = await get<{ backups: Backup[] }>(api.backups, {});
  fill(
    'backups',
    backups.map((b) => {
      const tr = row([
        localTime(b.createdAt),
        ageOf(b.createdAt),
        b.kind,
        sizeOf(b.size),
        b.files,
        b.id,
      ]);
      tr.append(actionCell('Restore', async () => openRestore(b.id), `Restore backup ${b.id}`));
      return tr;
    }),
    'No backups yet.',
    7,
  );
}

function status(text: string): void {
  $('backup-status').textContent = text;
}

export default {
  open: async (api) => {
    $('backup-create-button').addEventListener(
      'click',
      run(async () => {
        status('Taking a backup…');
        const { backup } = await send<{ backup: Backup }>('POST', api.backups, {}).catch((e) => {
          status('');
          throw e;
        });
        status(`Took backup ${backup.id}.`);
        document.body.dataset.lastBackup = backup.id;
        await loadBackups(api);
      }),
    );
    const input = $<HTMLInputElement>('backup-restore-confirm');
    input.addEventListener('input', () => {
      $<HTMLButtonElement>('backup-restore-button').disabled = input.value.trim() !== appId();
    });
    $('backup-restore-cancel').addEventListener('click', closeRestore);
    $<HTMLFormElement>('backup-restore').addEventListener('submit', (event) => {
      event.preventDefault();
      run(async () => {
        const id = chosen;
        // The button is enabled only on a match; a form submitted by Enter is checked again.
        if (id === undefined || input.value.trim() !== appId()) {
          throw new Error(`Type the app id ${appId()} to confirm the restore.`);
        }
        status(`Restoring backup ${id}…`);
        await send('POST', `${api.backups}/${encodeURIComponent(id)}/restore`, {}).catch((e) => {
          status('');
          throw e;
        });
        closeRestore();
        status(`Restored backup ${id}.`);
        document.body.dataset.lastRestore = id;
        await loadBackups(api);
      })();
    });
    await loadBackups(api);
  },
  refresh: loadBackups,
} satisfies SectionScript<'backups'>;
