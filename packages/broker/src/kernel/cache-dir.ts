import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The machine-wide cache of the broker, shared by every app of the user: `$PLATFORM_CACHE_DIR`,
 * else `$XDG_CACHE_HOME/platform`, else `~/.cache/platform` (the temp folder when there is no
 * home). It holds the database snapshots and Node's compiled code of the CLI.
 */
export function platformCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = homedir();
  return (
    env.PLATFORM_CACHE_DIR ??
    env.XDG_CACHE_HOME?.concat('/platform') ??
    (home ? join(home, '.cache', 'platform') : join(tmpdir(), 'platform'))
  );
}
