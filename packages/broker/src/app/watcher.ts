import { relative, sep } from 'node:path';
import { watch } from 'chokidar';

/** Top-level folders whose changes never matter to the app (the broker's own state among them). */
const IGNORED = new Set(['.platform', 'node_modules', '.git']);

/** A running watch of an app folder. */
export interface AppWatcher {
  /** Stops watching; changes still waiting for their batch are dropped. */
  close(): Promise<void>;
}

/**
 * Watches an app folder recursively and reports changed files in batches: changes arriving
 * within `debounceMs` of each other are reported together, as absolute paths. `.platform/`,
 * `node_modules/` and `.git/` are ignored. Resolves once the folder is being watched.
 *
 * Editors that save atomically, and `sed -i`, replace a file by renaming a new one over it. A
 * watch of the file itself (Node's recursive `fs.watch` on Linux watches each file's inode)
 * then follows the old, unlinked inode and sees no later edit; chokidar watches the folders
 * and takes up the new file, so every save is seen.
 *
 * @example
 * ```ts
 * const watcher = await watchApp(appDir, (paths) => console.log([...paths]));
 * await watcher.close();
 * ```
 */
export async function watchApp(
  appDir: string,
  onChange: (paths: ReadonlySet<string>) => void,
  debounceMs = 120,
): Promise<AppWatcher> {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(appDir, {
    ignoreInitial: true,
    ignored: (path) => IGNORED.has(relative(appDir, path).split(sep)[0] ?? ''),
  });
  watcher.on('all', (event, path) => {
    if (event === 'addDir' || event === 'unlinkDir') return;
    pending.add(path);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const batch = pending;
      pending = new Set();
      onChange(batch);
    }, debounceMs);
  });
  // A folder that cannot be read (permissions, removed meanwhile) is left unwatched; the
  // server keeps running and the rest of the app is still watched.
  watcher.on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return {
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

/** `path` relative to `appDir` with `/` separators. */
export const appRelative = (appDir: string, path: string): string =>
  relative(appDir, path).split(sep).join('/');
