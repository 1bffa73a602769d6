import { type FSWatcher, watch } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Top-level folders whose changes never matter to the app (the broker's own state among them). */
const IGNORED = new Set(['.platform', 'node_modules', '.git']);

/**
 * Watches an app folder recursively and reports changed files in batches: changes arriving
 * within `debounceMs` of each other are reported together, as absolute paths. `.platform/`,
 * `node_modules/` and `.git/` are ignored.
 *
 * @example
 * ```ts
 * const watcher = watchApp(appDir, (paths) => console.log([...paths]));
 * watcher.close();
 * ```
 */
export function watchApp(
  appDir: string,
  onChange: (paths: ReadonlySet<string>) => void,
  debounceMs = 120,
): { close(): void } {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(appDir, { recursive: true }, (_event, name) => {
      if (name === null) return;
      const file = name.toString();
      const top = file.split(sep)[0] ?? '';
      if (IGNORED.has(top)) return;
      pending.add(join(appDir, file));
      clearTimeout(timer);
      timer = setTimeout(() => {
        const batch = pending;
        pending = new Set();
        onChange(batch);
      }, debounceMs);
    });
    // A watcher error (the folder was removed) ends watching; the server keeps running.
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

/** `path` relative to `appDir` with `/` separators. */
export const appRelative = (appDir: string, path: string): string =>
  relative(appDir, path).split(sep).join('/');
