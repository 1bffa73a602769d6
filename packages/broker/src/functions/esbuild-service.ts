import { type BuildOptions, type BuildResult, build, type SameShape, stop } from 'esbuild';

/** How long esbuild's service process may sit idle before it is stopped (ms). */
export const ESBUILD_IDLE_MS = 2000;

let building = 0;
let idle: NodeJS.Timeout | undefined;
let stopsOnExit = false;

/**
 * esbuild's `build`, with its service process stopped once no build has run for
 * {@link ESBUILD_IDLE_MS}. The service is a child process that esbuild keeps for the life of the
 * broker and that holds hundreds of megabytes after bundling an app's Functions; the next build
 * (a save in watch mode, a frontend's first request) starts it again in milliseconds. The
 * service also stops when this process exits, with any build unfinished.
 *
 * @example
 * ```ts
 * const result = await buildThenIdle({ entryPoints: ['app.ts'], bundle: true, write: false });
 * ```
 */
export async function buildThenIdle<Options extends BuildOptions>(
  options: SameShape<BuildOptions, Options>,
): Promise<BuildResult<Options>> {
  building += 1;
  clearTimeout(idle);
  if (!stopsOnExit) {
    stopsOnExit = true;
    // Left running, the service finishes the build in progress after this process is gone: a
    // `platform dev` stopped while bundling would write bundles into a folder the user may be
    // removing. Stopping it is synchronous (a signal), as an exit handler must be.
    process.once('exit', () => void stop());
  }
  try {
    return await build(options);
  } finally {
    building -= 1;
    if (building === 0) {
      idle = setTimeout(() => {
        if (building === 0) void stop();
      }, ESBUILD_IDLE_MS);
      idle.unref();
    }
  }
}
