// Temporary: bundling time of the todo example's Functions, with and without the import rules.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFunction } from '../packages/broker/src/functions/bundler.ts';
import { resolveSdk } from '../packages/broker/src/functions/sdk.ts';

const appDir = join(import.meta.dirname, '..', 'examples', 'todo');
const entries = [
  'list-todos', 'create-todo', 'get-todo', 'toggle-todo', 'attach-file', 'read-attachment',
  'export-todos', 'search-todos', 'suggest-title', 'public-stats', 'send-reminder', 'daily-digest',
  'inbound-email', 'mail-in-address',
].map((name) => `functions/${name}/index.ts`);
const out = await mkdtemp(join(tmpdir(), 'bundle-bench-'));
const sdk = resolveSdk(appDir, '2.6.0');
for (let round = 0; round < 4; round++) {
  const t = performance.now();
  await Promise.all(
    entries.map((entrypoint, i) =>
      bundleFunction({ appDir, entrypoint, sdk, outFile: join(out, `${i}.js`) }),
    ),
  );
  console.log(`round ${round}: ${(performance.now() - t).toFixed(0)} ms for ${entries.length}`);
}
process.exit(0);
