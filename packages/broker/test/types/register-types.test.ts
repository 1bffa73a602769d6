import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';

const appDir = join(import.meta.dirname, 'fixtures', 'typed-app');
const outDir = join(appDir, '.platform');
const outFile = join(outDir, 'types.gen.d.ts');

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: (l: string) => out.push(l), stderr: (l: string) => err.push(l), cwd: appDir },
  };
}

// Compiles `file` with the generated types the way an app's frontend would (strict, Bundler
// resolution); returns the diagnostics as readable lines.
function compile(file: string): string[] {
  const program = ts.createProgram([join(appDir, file), outFile], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ['@platform/source'],
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('platform types', () => {
  beforeAll(async () => {
    await mkdir(outDir, { recursive: true });
    const run = io();
    expect(await main(['types', '.', '--out', outFile], run.io)).toBe(0);
    expect(run.out.join('\n')).toContain('3 Functions');
  });
  afterAll(() => rm(outDir, { recursive: true, force: true }));

  it('types calls from each Function’s input schema and JSON result', () => {
    expect(compile('client.ts')).toEqual([]);
  }, 60_000);

  it('rejects a frontend that misuses a result (the types are not any)', () => {
    const problems = compile('client-wrong.ts');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/client-wrong.ts: Type '.*' is not assignable to type 'number'/);
  }, 60_000);

  it('--check passes when fresh and fails when stale or missing', async () => {
    expect(await main(['types', '.', '--out', outFile, '--check'], io().io)).toBe(0);
    const missing = io();
    expect(
      await main(['types', '.', '--out', join(outDir, 'absent.d.ts'), '--check'], missing.io),
    ).toBe(1);
    expect(missing.err.join('\n')).toContain('missing');
    expect(await readFile(outFile, 'utf8')).toContain('interface Register');
  });

  it('keeps the example app’s generated types fresh', async () => {
    const example = join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'todo');
    const run = io();
    expect(await main(['types', example, '--check'], run.io), run.err.join('\n')).toBe(0);
  });

  it('refuses an app whose platform.yaml has errors', async () => {
    const run = io();
    expect(await main(['types', join(appDir, 'functions')], run.io)).toBe(1);
    expect(run.err.join('\n')).toContain('MANIFEST_NOT_FOUND');
  });
});
