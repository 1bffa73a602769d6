/**
 * Writes packages/schema/manifest.schema.json from the zod source of the manifest schema, then
 * formats it with biome (the repository's formatter). Run from the repository root:
 * `npx tsx packages/schema/scripts/gen-manifest-schema.ts`; add `--check` to only fail when the
 * committed file is stale. test/manifest/json-schema.test.ts runs the same comparison.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { manifestJsonSchema } from '../src/manifest/json-schema.ts';

const target = fileURLToPath(new URL('../manifest.schema.json', import.meta.url));
const schema = manifestJsonSchema();

if (process.argv.includes('--check')) {
  const current: unknown = JSON.parse(await readFile(target, 'utf8').catch(() => 'null'));
  if (!isDeepStrictEqual(current, schema)) {
    console.error(
      'manifest.schema.json is stale; run npx tsx packages/schema/scripts/gen-manifest-schema.ts',
    );
    process.exitCode = 1;
  }
} else {
  await writeFile(target, `${JSON.stringify(schema, null, 2)}\n`);
  execFileSync('npx', ['biome', 'format', '--write', target], { stdio: 'ignore' });
  console.log(`wrote ${target}`);
}
