import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findImports } from '../../src/manifest/index.ts';
import { BASE, run } from './helpers.ts';

describe('findImports', () => {
  it('finds runtime imports and skips comments and type-only imports', () => {
    const source = [
      "import a from './a.ts';",
      "import { b, type C } from './b.ts';",
      "import type { D } from '../d.ts';",
      "export type { E } from '../e.ts';",
      "export * from './f.ts';",
      "export { g } from './g.ts';",
      "import './side.ts';",
      "const h = await import('./h.ts');",
      "// import x from '../commented.ts';",
      "/* import y from '../block.ts'; */",
      'const s = \'import z from "../string"\';',
      'import {',
      '  multi,',
      "} from './multi.ts';",
      "import pkg from '@platform/server';",
    ].join('\n');
    expect(findImports(source).map((s) => s.specifier)).toEqual([
      './a.ts',
      './b.ts',
      './f.ts',
      './g.ts',
      './side.ts',
      './h.ts',
      '../string',
      './multi.ts',
      '@platform/server',
    ]);
  });
});

describe('bundling rules', () => {
  const manifest = `${BASE.replace('functions/api/index.ts', 'functions/api/main.ts')}`;
  const check = (files: Record<string, string>) => run(manifest, { files });

  it('follows helpers inside the directory', async () => {
    const { errors } = await check({
      'functions/api/main.ts': "import { h } from './lib/h.ts';\n",
      'functions/api/lib/h.ts':
        "export { x } from './x.ts';\nimport data from '../data.json' with { type: 'json' };\n",
      'functions/api/lib/x.ts': 'export const x = 1;\n',
      'functions/api/data.json': '{}',
    });
    expect(errors).toEqual([]);
  });

  it('reports an import that leaves the directory, at the import', async () => {
    const { errors } = await check({
      'functions/api/main.ts':
        "import { defineFunction } from '@platform/server';\n\nimport { shared } from '../shared/util.ts';\n",
      'functions/shared/util.ts': 'export const shared = 1;\n',
    });
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'IMPORT_OUTSIDE_FUNCTION_DIR',
        file: 'functions/api/main.ts',
        line: 3,
        column: 24,
        path: 'functions[1].entrypoint',
      }),
    ]);
  });

  it('reports an absolute import as outside', async () => {
    const { errors } = await check({ 'functions/api/main.ts': "import '/etc/passwd';\n" });
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'IMPORT_OUTSIDE_FUNCTION_DIR',
        file: 'functions/api/main.ts',
        line: 1,
        column: 8,
      }),
    ]);
  });

  it('reports a missing file in a nested helper, at that helper', async () => {
    const { errors } = await check({
      'functions/api/main.ts': "import './lib/h.ts';\n",
      'functions/api/lib/h.ts': "// helper\nexport { gone } from './Gone.ts';\n",
      'functions/api/lib/gone.ts': '',
    });
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'IMPORT_FILE_MISSING',
        file: 'functions/api/lib/h.ts',
        line: 2,
        column: 22,
      }),
    ]);
  });

  it('reports a missing extension with the fix', async () => {
    const { errors } = await check({
      'functions/api/main.ts': "const m = await import('./util');\n",
      'functions/api/util.ts': '',
    });
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'IMPORT_EXTENSION_MISSING',
        file: 'functions/api/main.ts',
        line: 1,
        column: 24,
      }),
    ]);
    expect(errors[0]!.message).toContain('"./util.ts"');
  });

  it('checks the broken-imports fixture app from disk', async () => {
    const { readFile, stat } = await import('node:fs/promises');
    const { checkManifest } = await import('../../src/manifest/index.ts');
    const dir = fileURLToPath(new URL('./fixtures/broken-imports', import.meta.url));
    const text = await readFile(`${dir}/platform.yaml`, 'utf8');
    const result = await checkManifest(text, {
      appDir: dir,
      host: {
        readFile: (p) => readFile(p, 'utf8').catch(() => undefined),
        exists: (p) =>
          stat(p).then(
            (s) => s.isFile(),
            () => false,
          ),
      },
    });
    expect(result.errors.map((e) => [e.code, e.file, e.line, e.column])).toEqual([
      ['IMPORT_FILE_MISSING', 'functions/a/helper.ts', 1, 25],
      ['IMPORT_EXTENSION_MISSING', 'functions/a/helper.ts', 3, 24],
      ['IMPORT_OUTSIDE_FUNCTION_DIR', 'functions/a/index.ts', 2, 24],
    ]);
  });
});
