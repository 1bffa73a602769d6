#!/usr/bin/env node
// A small entry: check the Node version first, then load the CLI. A static import of the CLI
// would load its dependencies (undici needs Node 22.19) before the check could run.
import module from 'node:module';
import { join } from 'node:path';
import { nodeTooOld } from './cli/node-version.ts';
import { brokerPackage } from './kernel/broker-package.ts';
import { platformCacheDir } from './kernel/cache-dir.ts';

const tooOld = nodeTooOld(process.versions.node, brokerPackage.engines.node, process.execPath);
if (tooOld !== undefined) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(1);
}
// V8's compiled code of the CLI's modules, kept in the user's cache (Node checks each module's
// source against its entry): later starts skip most of the compiling.
module.enableCompileCache(join(platformCacheDir(), 'node-compile-cache'));
const [{ main }, { exitQuietlyWhenOutputCloses }] = await Promise.all([
  import('./cli/main.ts'),
  import('./cli/io.ts'),
]);
exitQuietlyWhenOutputCloses();
process.exitCode = await main(process.argv.slice(2));
