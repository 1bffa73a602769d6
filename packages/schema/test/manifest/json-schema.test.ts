import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { limits } from '../../src/limits.ts';
import { manifestDiagnosticCodes, manifestJsonSchema } from '../../src/manifest/index.ts';

describe('manifest.schema.json', () => {
  it('is the JSON Schema generated from the zod source (run scripts/gen-manifest-schema.ts if stale)', async () => {
    const committed: unknown = JSON.parse(
      await readFile(new URL('../../manifest.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(manifestJsonSchema());
  });

  it('describes the fields, defaults and limits editors need', () => {
    const schema = manifestJsonSchema() as {
      additionalProperties: boolean;
      properties: Record<
        string,
        { default?: unknown; items?: { properties: Record<string, { maximum?: number }> } }
      >;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.visibility?.default).toBe('private');
    expect(schema.properties.queues?.items?.properties.concurrency?.maximum).toBe(64);
  });
});

describe('diagnostic catalog', () => {
  it('has a test that asserts every code', async () => {
    const dir = new URL('./', import.meta.url);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.test.ts'));
    const texts = await Promise.all(files.map((f) => readFile(new URL(f, dir), 'utf8')));
    const broker = await readFile(
      new URL('../../../broker/test/cli-validate.test.ts', import.meta.url),
      'utf8',
    );
    const all = [...texts, broker].join('\n').replace(/manifestDiagnosticCodes[\s\S]*?\n/g, '');
    const untested = Object.keys(manifestDiagnosticCodes).filter(
      (code) => !all.includes(`'${code}'`),
    );
    expect(untested).toEqual([]);
  });
});

describe('docs/manifest.md', () => {
  it('documents every diagnostic code and the queue defaults and maxima', async () => {
    const docs = await readFile(new URL('../../../../docs/manifest.md', import.meta.url), 'utf8');
    const missing = Object.keys(manifestDiagnosticCodes).filter(
      (code) => !docs.includes(`\`${code}\``),
    );
    expect(missing).toEqual([]);
    for (const [field, setting] of Object.entries(limits.queues)) {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${field}\``));
      expect(row, field).toContain(`| ${String(setting.default)} |`);
      if ('max' in setting) expect(row, field).toContain(`| ${setting.max}`);
    }
  });
});
