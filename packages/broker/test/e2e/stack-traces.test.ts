// A Function that throws: the stack the broker prints names the Function's own source file and
// line (the bundle's source map resolves against the app folder), not a path inside .platform/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { eventually, fixtureApp } from './fixture-app.ts';
import { devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let lines: string[];

beforeAll(async () => {
  app = await tempDir('stack-traces-');
  await writeFiles(app.path, {
    ...fixtureApp,
    'platform.yaml': fixtureApp['platform.yaml']!.replace(
      'functions:\n',
      'functions:\n  - name: boom\n    entrypoint: functions/boom/index.ts\n    access: public\n',
    ),
    'functions/boom/helper.ts': `export function explode(): never {
  // line 2
  throw new Error('kaboom');
}
`,
    'functions/boom/index.ts': `import { defineFunction, s } from '@platform/server';
import { explode } from './helper.ts';

export default defineFunction({
  input: s.object({}),
  handler: () => explode(),
});
`,
  });
  ({ dev, lines } = await devFor(app.path, { watch: false }));
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

describe('stack traces of Functions', () => {
  it("name the Function's own source files and lines", async () => {
    const response = await fetch(`${dev.url}/_platform/api/functions/boom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(500);
    const printed = await eventually(async () => {
      const text = lines.join('\n');
      expect(text).toContain('kaboom');
      return text;
    });
    // Relative to the app folder, as the developer knows the files.
    expect(printed).toContain('(functions/boom/helper.ts:3:');
    expect(printed).toContain('(functions/boom/index.ts:6:');
    expect(printed).not.toContain(`file://${app.path}/functions/`);
    expect(printed).not.toContain('.platform/functions/functions');
  });
});
