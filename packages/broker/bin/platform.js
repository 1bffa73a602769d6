#!/usr/bin/env node
// The `platform` executable: loads the built CLI (dist/bin.js, which checks the Node version
// first). This file is not built but kept in the source tree, so npm links it when it installs a
// checkout of the repository, before `npm run build` has made dist/.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'platform: the CLI is not built (no dist/bin.js in @platform/broker). In the platform SDK\n' +
      'repository run npm run setup (or npm run build) first, or npm run platform -- <command>\n' +
      'to run it from the sources.\n',
  );
  process.exit(1);
}
await import(entry.href);
