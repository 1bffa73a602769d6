import { readFile } from 'node:fs/promises';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type Manifest,
  manifestDiagnosticCodes,
  manifestSchema,
  parseManifest,
  validateManifest,
} from '../../src/manifest/index.ts';
import { issueToDiagnostics } from '../../src/manifest/issues.ts';
import { BASE, expectOne, memoryHost } from './helpers.ts';

const fixture = (name: string) => new URL(`./fixtures/${name}/`, import.meta.url);

describe('parseManifest: YAML and structure', () => {
  it('reports YAML syntax errors with their position', async () => {
    const result = parseManifest('schemaVersion: 3\nfunctions: [\n  - a\n', { file: 'x.yaml' });
    expect(result.manifest).toBeUndefined();
    expect(result.errors[0]).toMatchObject({
      code: 'YAML_SYNTAX_ERROR',
      file: 'x.yaml',
      severity: 'error',
    });
    expect(result.errors[0]!.line).toBeGreaterThan(1);
  });

  it('reports a duplicate key at the repeated key', async () => {
    await expectOne(`${BASE}visibility: public\n👉visibility: private\n`, 'YAML_DUPLICATE_KEY', '');
  });

  it('reports an empty file', () => {
    const { errors } = parseManifest('# nothing\n');
    expect(errors).toEqual([
      expect.objectContaining({ code: 'MANIFEST_EMPTY', line: 1, column: 1 }),
    ]);
  });

  it('reports a document that is not a mapping', () => {
    const { errors } = parseManifest('- a\n- b\n');
    expect(errors).toEqual([
      expect.objectContaining({ code: 'INVALID_TYPE', path: '', line: 1, column: 1 }),
    ]);
  });

  it('reports an unknown top-level field at its key, with a suggestion', async () => {
    const d = await expectOne(`${BASE}👉queue: []\n`, 'UNKNOWN_FIELD', 'queue');
    expect(d.message).toContain('Did you mean "queues"?');
  });

  it('reports an unknown nested field at its key', async () => {
    const d = await expectOne(
      `${BASE}queues:\n  - name: jobs\n    function: worker\n    👉maxAttemps: 3\n`,
      'UNKNOWN_FIELD',
      'queues[0].maxAttemps',
    );
    expect(d.message).toContain('Did you mean "maxAttempts"?');
  });

  it('reports a missing required field at the mapping that lacks it', async () => {
    await expectOne(
      `${BASE}queues:\n  - 👉name: jobs\n    concurrency: 1\n`,
      'REQUIRED_FIELD_MISSING',
      'queues[0].function',
    );
  });

  it('reports a missing runtime.sdk.version', async () => {
    const d = await expectOne(
      'schemaVersion: 3\nruntime:\n  sdk: 👉{}\n',
      'REQUIRED_FIELD_MISSING',
      'runtime.sdk.version',
    );
    expect(d.message).toContain('"version"');
  });

  it('reports a wrong type at the value', async () => {
    await expectOne(`${BASE}secrets: 👉API_KEY\n`, 'INVALID_TYPE', 'secrets');
  });

  it('rejects a visibility other than public or private', async () => {
    const d = await expectOne(`${BASE}visibility: 👉Public\n`, 'VISIBILITY_INVALID', 'visibility');
    expect(d.message).toContain('Did you mean "public"?');
  });

  it('maps structural issues without a specific code to INVALID_VALUE', () => {
    const [d] = issueToDiagnostics(
      {
        code: 'not_multiple_of',
        divisor: 2,
        input: 3,
        path: ['queues', 0, 'concurrency'],
        message: 'x',
      },
      {
        schema: manifestSchema,
        data: { queues: [{ concurrency: 3 }] },
        file: 'platform.yaml',
        locator: undefined,
      },
    );
    expect(d).toMatchObject({
      code: 'INVALID_VALUE',
      path: 'queues[0].concurrency',
      line: 0,
      column: 0,
    });
  });

  it('applies defaults and infers the Manifest type', () => {
    const { manifest, errors } = parseManifest(
      `${BASE}queues:\n  - name: jobs\n    function: worker\n`,
    );
    expect(errors).toEqual([]);
    expectTypeOf(manifest).toEqualTypeOf<Manifest | undefined>();
    expect(manifest?.visibility).toBe('private');
    expect(manifest?.queues[0]).toEqual({
      name: 'jobs',
      function: 'worker',
      concurrency: 1,
      maxAttempts: 5,
      retryDelaySeconds: 30,
      retryBackoff: true,
      timeoutSeconds: 60,
    });
    expect(manifest?.integrations).toEqual({});
  });

  it('parses a manifest that uses every feature into a typed object', async () => {
    const dir = fixture('full');
    const text = await readFile(new URL('platform.yaml', dir), 'utf8');
    const parsed = parseManifest(text);
    expect(parsed.errors).toEqual([]);
    const manifest = parsed.manifest!;
    expect(manifest.visibility).toBe('public');
    expect(manifest.functions.map((f) => f.route?.path)).toContain('/api/contacts/:id');
    expect(manifest.functions[1]?.route?.methods).toEqual(['GET']);
    expect(manifest.provides?.integration?.authorization?.pkce).toBe(true);
    expect(manifest.provides?.integration?.authorization?.accessToken).toBe('OAUTH_ACCESS_TOKEN');
    expect(manifest.provides?.integration?.credentials[0]).toEqual({
      name: 'ACME_API_KEY',
      label: 'API key',
      secret: true,
      optional: false,
    });
    expect(manifest.integrations.personalCrm?.cardinality).toBe('one');
    expect(manifest.data.search[0]?.vector?.dimensions).toBe(1536);
    expect(manifest.cron[0]?.enabled).toBe(false);
    const files = new Map<string, string>();
    const host = {
      readFile: async (p: string) => readFile(new URL(p, dir), 'utf8').catch(() => undefined),
      exists: async (p: string) =>
        files.get(p) !== undefined ||
        (await readFile(new URL(p, dir)).then(
          () => true,
          () => false,
        )),
    };
    const validated = await validateManifest(manifest, { appDir: '', host });
    expect(validated.errors).toEqual([]);
    expect(validated.warnings).toEqual([]);
  });

  it('validates a manifest built in code, without positions', async () => {
    const { manifest } = parseManifest(`${BASE}`);
    const copy = structuredClone(manifest!);
    copy.functions[1]!.name = 'worker';
    const { errors } = await validateManifest(copy, { appDir: 'app', host: memoryHost({}) });
    expect(errors.map((e) => [e.code, e.line, e.column])).toContainEqual([
      'FUNCTION_NAME_DUPLICATE',
      0,
      0,
    ]);
  });

  it('keeps every diagnostic code UPPER_SNAKE', () => {
    for (const code of Object.keys(manifestDiagnosticCodes))
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });
});
