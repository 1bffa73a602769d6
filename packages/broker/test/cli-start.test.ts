// What the CLI loads when it starts: the libraries of features that most runs never use wait
// for their first use, so `platform dev` and every command start without them.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const loader = fileURLToPath(new URL('./fixtures/loaded-packages.mjs', import.meta.url));
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

describe('the CLI at start', () => {
  it('loads no AI SDK, MCP SDK, mail parser, web-push or pg until they are needed', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--conditions=@platform/source',
      loader,
      main,
    ]);
    const loaded = JSON.parse(stdout) as string[];
    // The check sees the packages: the CLI's own dependencies are there.
    expect(loaded).toEqual(expect.arrayContaining(['hono', 'undici', 'zod']));
    for (const lazy of [
      'ai',
      '@ai-sdk/openai-compatible',
      '@modelcontextprotocol/server',
      'mailparser',
      'web-push',
      'pg',
    ]) {
      expect(loaded).not.toContain(lazy);
    }
  });
});
