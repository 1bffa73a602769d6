// What the CLI loads when it starts: the broker itself loads only when `platform dev` runs, and
// the libraries of features that most runs never use wait for their first use, so `platform dev`
// and every command start without them.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const loader = fileURLToPath(new URL('./fixtures/loaded-packages.mjs', import.meta.url));

/** The packages of node_modules that loading `module` (relative to src/) resolves. */
async function loadedBy(module: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--conditions=@platform/source',
    loader,
    fileURLToPath(new URL(`../src/${module}`, import.meta.url)),
  ]);
  return JSON.parse(stdout) as string[];
}

const lazy = [
  'ai',
  '@ai-sdk/openai-compatible',
  '@modelcontextprotocol/server',
  'mailparser',
  'web-push',
  'pg',
];

describe('the CLI at start', () => {
  it('loads neither the broker nor the libraries of unused features', async () => {
    const loaded = await loadedBy('cli/main.ts');
    // The check sees the packages: the CLI's own dependencies are there.
    expect(loaded).toEqual(expect.arrayContaining(['yaml', 'zod']));
    for (const name of ['hono', '@electric-sql/pglite', ...lazy])
      expect(loaded).not.toContain(name);
  });

  it('loads the broker for platform dev, still without AI SDK, MCP SDK, mail parser, web-push or pg', async () => {
    const loaded = await loadedBy('app/start-dev.ts');
    expect(loaded).toEqual(expect.arrayContaining(['hono', 'undici', 'zod']));
    for (const name of lazy) expect(loaded).not.toContain(name);
  });
});
