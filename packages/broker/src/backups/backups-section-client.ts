// The dashboard's backups, in the browser.
import {
  fill,
  get,
  localTime,
  row,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';

/** A backup as the owner API lists it. */
interface Backup {
  id: string;
  kind: string;
  createdAt: string;
  size: number;
  files: number;
}

const sizeOf = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function loadBackups(api: { readonly backups: string }): Promise<void> {
  const { backups } = await get<{ backups: Backup[] }>(api.backups, {});
  fill(
    'backups',
    backups.map((b) => row([localTime(b.createdAt), b.kind, sizeOf(b.size), b.files, b.id])),
    'No backups yet.',
    5,
  );
}

export default { open: loadBackups } satisfies SectionScript<'backups'>;
