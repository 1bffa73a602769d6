import { join } from 'node:path';

/** The folder of an app's embedded database: `<appDir>/.platform/db`. */
export function appDataDir(appDir: string): string {
  return join(appDir, '.platform', 'db');
}

/** The folder of a folder's embedded central store: `<dir>/.platform/central`. */
export function centralDataDir(dir: string): string {
  return join(dir, '.platform', 'central');
}
