import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** PGlite's two WebAssembly programs, compiled once for the whole process. */
export interface PgliteModules {
  /** The PostgreSQL backend (`pglite.wasm`). */
  readonly pglite: WebAssembly.Module;
  /** initdb (`initdb.wasm`), used only when a cluster is created without a snapshot. */
  readonly initdb: WebAssembly.Module;
}

let compiled: Promise<PgliteModules> | undefined;

/**
 * Compiles PGlite's programs on first use and keeps them for the life of the process; every
 * database worker instantiates these instead of compiling its own copy. Besides saving a compile
 * per database, it keeps V8's compiled WebAssembly code alive across databases: a process that
 * opens and closes many embedded databases (a workspace, a test file) otherwise frees and
 * reallocates that code each time, and Node 24 can abort in that churn (a V8 check on its JIT
 * page registry).
 */
export function pgliteModules(): Promise<PgliteModules> {
  compiled ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const compile = async (file: string) => WebAssembly.compile(await readFile(join(dist, file)));
    const [pglite, initdb] = await Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]);
    return { pglite, initdb };
  })();
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}
