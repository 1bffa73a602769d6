import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatDiagnostic } from '@platform/schema/manifest';
import { loadManifest } from '../project/manifest.ts';
import { renderRegisterTypes, TYPES_FILE } from '../project/register-types.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform types [appDir] [--out <file>] [--check]

Writes ${TYPES_FILE} (default: beside platform.yaml), which types platform.functions.call()
and .stream() of @platform/browser from each Function's input schema and handler result.

Options:
  --out <file>   Where to write the file, relative to the current directory.
  --check        Write nothing; exit 1 when the file is missing or out of date (for CI).
  -h, --help     Show this help.`;

/** `platform types`: writes the `Register` augmentation for `@platform/browser`. */
export const typesCommand = defineCommand({
  name: 'types',
  summary: 'Write the .d.ts that types browser calls to the app\u2019s Functions.',
  usage,
  options: { out: { type: 'string' }, check: { type: 'boolean', default: false } },
  maxPositionals: 1,
  async run({ values, positionals }, io) {
    const appDir = resolve(io.cwd, positionals[0] ?? '.');
    const { manifest, errors } = await loadManifest(appDir);
    if (!manifest || errors.length > 0) {
      for (const error of errors) io.stderr(formatDiagnostic(error));
      io.stderr('platform types: fix platform.yaml first (platform validate shows every problem).');
      return exitCodes.failed;
    }
    const outFile = values.out ? resolve(io.cwd, values.out) : resolve(appDir, TYPES_FILE);
    const text = renderRegisterTypes(manifest, appDir, outFile);
    if (values.check) {
      const current = await readFile(outFile, 'utf8').catch(() => undefined);
      if (current === text) return exitCodes.ok;
      io.stderr(
        `${outFile} is ${current === undefined ? 'missing' : 'out of date'}: run platform types`,
      );
      return exitCodes.failed;
    }
    await writeFile(outFile, text);
    io.stdout(`wrote ${outFile} (${manifest.functions.length} Functions)`);
    return exitCodes.ok;
  },
});
