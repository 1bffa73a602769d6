// The console's Files section, in the browser: metadata only, a page at a time.
import {
  $,
  fill,
  get,
  localTime,
  row,
  run,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { FileInfo } from './file-rows.ts';

const PAGE = 25;
let offset = 0;

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1048576
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`;

async function loadFiles(api: { readonly files: string }): Promise<void> {
  const page = await get<{ files: (FileInfo & { ownerId: string | null })[]; total: number }>(
    api.files,
    { limit: String(PAGE), offset: String(offset) },
  );
  fill(
    'files',
    page.files.map((f) =>
      row([
        localTime(f.createdAt),
        f.name,
        f.contentType,
        size(f.size),
        f.ownerId ?? 'system',
        f.generation,
        f.id,
      ]),
    ),
    'No files yet.',
    7,
  );
  $('files-count').textContent = `${page.total} file(s)`;
  $<HTMLButtonElement>('files-prev').disabled = offset === 0;
  $<HTMLButtonElement>('files-next').disabled = offset + PAGE >= page.total;
}

export default {
  open: (api) => {
    $('files-prev').addEventListener(
      'click',
      run(() => {
        offset = Math.max(0, offset - PAGE);
        return loadFiles(api);
      }),
    );
    $('files-next').addEventListener(
      'click',
      run(() => {
        offset += PAGE;
        return loadFiles(api);
      }),
    );
    return loadFiles(api);
  },
  refresh: loadFiles,
} satisfies SectionScript<'files'>;
