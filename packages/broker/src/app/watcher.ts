import { relative, sep } from 'node:path';
import { watch } from 'chokidar';

/** Top-level folders whose changes never matter to the app (the broker's own state among them). */
const IGNORED = new Set(['.platform', 'node_modules', '.git']);

/** A running app watcher. */
export interface AppWatcher {
  /** Settles once the folder is watched: a change after it is reported. */
  readonly ready: Promise<void>;
  /** Stops watching; pending changes are dropped. */
  close(): Promise<void>;
}

/**
 * Watches an app folder recursively and reports changed files in batches: changes arriving
 * within `debounceMs` of each other are reported together, as absolute paths. `.platform/`,
 * `node_modules/` and `.git/` are ignored.
 *
 * chokidar watches folders and follows renames: a save that writes a temporary file and renames
 * it over the original (`sed -i`, editors that save atomically) is a change of that file, and
 * later saves are still seen. (`fs.watch` watched the replaced file's inode and went blind.)
 *
 * @example
 * ```ts
 * const watcher = watchApp(appDir, (paths) => console.log([...paths]));
 * await watcher.ready;
 * await watcher.close();
 * ```
 */
export function watchApp(
  appDir: string,
  onChange: (paths: ReadonlySet<string>) => void,
  debounceMs = 120,
): AppWatcher {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(appDir, {
    ignoreInitial: true,
    ignored: (path) => IGNORED.has(appRelative(appDir, path).split('/')[0] ?? ''),
  });
  watcher.on('all', (_event, path) => {
    pending.add(path);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const batch = pending;
      pending = new Set();
      onChange(batch);
    }, debounceMs);
  });
  // A watcher error (the folder was removed) ends watching; the server keeps running.
  watcher.on('error', () => void watcher.close());
  const ready = new Promise<void>((resolve) => {
    watcher.once('ready', () => resolve());
    watcher.once('error', () => resolve());
  });
  return {
    ready,
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

/** `path` relative to `appDir` with `/` separators. */
export const appRelative = (appDir: string, path: string): string =>
  relative(appDir, path).split(sep).join('/');
