// `platform backups` against a running platform dev: take, list, restore behind --yes, and
// `restore --to`, which restores into a new app beside the live one and says where it serves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { main } from '../../src/cli/main.ts';
import { copyExample, devFor } from '../e2e/helpers.ts';

let app: Awaited<ReturnType<typeof copyExample>>;
let dev: DevServer;

const cli = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['backups', ...args, '--app', app.path], {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    cwd: app.path,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

beforeAll(async () => {
  app = await copyExample('todo');
  ({ dev } = await devFor(app.path, { watch: false, inMemory: true }));
}, 120_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

describe('platform backups', () => {
  it('takes and lists a backup, and restores it only with --yes', async () => {
    const taken = await cli('create');
    expect(taken.code, taken.err).toBe(0);
    const id = /bak_\w+/.exec(taken.out)?.[0] ?? '';
    expect(id).not.toBe('');
    expect((await cli('list')).out).toContain(id);
    const unconfirmed = await cli('restore', id);
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.err).toContain('--yes');
    const restored = await cli('restore', id, '--yes');
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toContain(`Restored ${id}`);
  }, 60_000);

  it('restores into a new app with --to, without --yes, and prints where it serves', async () => {
    const { out } = await cli('list', '--json');
    const [backup] = (JSON.parse(out) as { backups: { id: string }[] }).backups;
    const answer = await cli('restore', backup?.id ?? '', '--to', 'todo-inspect');
    expect(answer.code, answer.err).toBe(0);
    expect(answer.out).toContain(`Restored ${backup?.id}`);
    expect(answer.out).toMatch(
      /new app todo-inspect, serving at http:\/\/todo-inspect\.localhost:\d+/,
    );
    expect(answer.out).toContain('held for inspection');
    const again = await cli('restore', backup?.id ?? '', '--to', 'todo-inspect');
    expect(again.code).not.toBe(0);
    expect(again.err).toContain('APP_ID_TAKEN');
    expect((await cli('list')).code).toBe(0);
  }, 60_000);
});
