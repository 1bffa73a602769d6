// `platform dev`, `platform invoke` and `platform outbox` as real subprocesses: the URL line,
// direct invocation as a user and as system, the outbox, refusing a bad manifest, and stopping
// on SIGTERM or dying by SIGKILL without leaving Deno processes behind.
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dashboardLinkKey } from '../../src/project/dev-state.ts';
import { eventually } from './fixture-app.ts';
import {
  ada,
  alive,
  copyExample,
  exitOf,
  platform,
  platformWithClosedStdout,
  root,
  spawnPlatform,
  waitForUrl,
} from './helpers.ts';

/**
 * Calls every Function of the app once through the dev token's direct invocation, so each has
 * its process (they start on their first call). The answers do not matter, only that each came.
 */
async function callEveryFunction(appDir: string, base: string): Promise<void> {
  const { token, appId } = JSON.parse(await readFile(join(appDir, '.platform/dev.json'), 'utf8'));
  const manifest = parse(await readFile(join(appDir, 'platform.yaml'), 'utf8')) as {
    functions: { name: string }[];
  };
  for (const { name } of manifest.functions) {
    const response = await fetch(`${base}/v1/apps/${appId}/invoke/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: {}, user: ada }),
    });
    await response.arrayBuffer();
  }
}

/** Process ids of the Deno children of `pid`. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim().endsWith('deno'))
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

let app: { path: string; remove: () => Promise<void> };
let child: ChildProcess | undefined;
const lines: string[] = [];
let url = '';

beforeAll(async () => {
  app = await copyExample();
  // Public, so the page loads without signing in (sign-in has its own tests).
  const manifest = join(app.path, 'platform.yaml');
  await writeFile(
    manifest,
    (await readFile(manifest, 'utf8')).replace('visibility: private', 'visibility: public'),
  );
  child = spawnPlatform(['dev', app.path, '--port', '0']);
  url = await waitForUrl(child, lines);
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await app?.remove();
});

describe('platform dev as a subprocess', () => {
  it('prints the URL on a line of its own and serves the page', async () => {
    expect(url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(lines.some((line) => /ready in \d+ ms \(14 Functions\)/.test(line))).toBe(true);
    // Then the dashboard link: its key is derived from the dev token of .platform/dev.json,
    // which is never printed.
    const token = JSON.parse(await readFile(join(app.path, '.platform/dev.json'), 'utf8')).token;
    await eventually(async () =>
      expect(lines).toContain(
        `Dashboard: ${url}/_platform/dashboard?key=${dashboardLinkKey(token)}`,
      ),
    );
    expect(lines.join('\n')).not.toContain(token);
    // Then where the app receives mail: the SMTP listener and the app's addresses.
    await eventually(async () =>
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^Mail: smtp:\/\/127\.0\.0\.1:\d+ for reminders@todo-app-[a-z0-9-]+\.localhost, todo@todo-app-[a-z0-9-]+\.localhost -> inboundEmail$/,
        ),
      ),
    );
    expect(await (await fetch(url)).text()).toContain('<title>Todos</title>');
  });

  it('prints what getting-started quotes, the number of Functions included', async () => {
    const guide = await readFile(join(root, 'docs/getting-started.md'), 'utf8');
    const quoted = /runs\n`platform dev examples\/todo`[^\n]*\n\n```\n([\s\S]*?)\n```/.exec(
      guide,
    )?.[1];
    expect(quoted).toBeDefined();
    // Only what differs between runs is left open: timings, ports, the key, the copy's folder.
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const patterns = (quoted ?? '').split('\n').map(
      (line) =>
        new RegExp(
          `^${literal(line)
            .replace(/ready in \d+ ms/, 'ready in \\d+ ms')
            .replace(/:\d{4,5}\b/g, ':\\d+')
            .replace('key=…', 'key=[0-9a-zA-Z_-]+')
            .replace('examples/todo', '\\S*todo-app-[A-Za-z0-9]+')
            .replaceAll('@todo\\.localhost', '@todo-app-[a-z0-9-]+\\.localhost')}$`,
        ),
    );
    await eventually(async () => {
      for (const pattern of patterns) expect(lines).toContainEqual(expect.stringMatching(pattern));
    });
  });

  it('platform invoke runs a Function as a user, and system Functions as system', async () => {
    const created = await platform([
      'invoke',
      'createTodo',
      '{"title":"From the CLI"}',
      '--app',
      app.path,
      '--user',
      ada,
    ]);
    expect(created.stderr).toBe('');
    const todo = JSON.parse(created.stdout) as { id: string; owner_id: string };
    expect(todo.owner_id).toBe(ada);
    const anonymous = await platform(['invoke', 'listTodos', '--app', app.path]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain('AUTH_REQUIRED (401)');
    const sent = await platform([
      'invoke',
      'sendReminder',
      JSON.stringify({ todoId: todo.id, to: 'ada@example.com' }),
      '--app',
      app.path,
    ]);
    expect(sent.code).toBe(0);
    const outbox = await platform(['outbox', '--app', app.path]);
    expect(outbox.stdout).toContain('reminders -> ada@example.com  "Reminder: From the CLI"');
    const json = JSON.parse((await platform(['outbox', '--app', app.path, '--json'])).stdout) as {
      emails: { functionName: string }[];
    };
    expect(json.emails[0]?.functionName).toBe('sendReminder');
    // `platform outbox | head -1`: the reader goes away, the CLI ends quietly.
    expect(await platformWithClosedStdout(['outbox', '--app', app.path])).toEqual({
      code: 0,
      stderr: '',
    });
    expect(lines.join('\n')).toContain('[sendReminder] reminder sent');
  });

  it('prints one line per request, job run and email, without colour in a pipe', async () => {
    const { appId } = JSON.parse(await readFile(join(app.path, '.platform/dev.json'), 'utf8'));
    await (await fetch(`${url}/?key=not-printed`)).arrayBuffer();
    await eventually(async () =>
      expect(lines).toContainEqual(expect.stringMatching(/^GET \/ 200 \d+ ms$/)),
    );
    // The reminder the test before sent through platform invoke.
    expect(lines).toContainEqual(
      'mail sent reminders -> ada@example.com "Reminder: From the CLI" sendReminder',
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^POST /v1/apps/${appId}/invoke/sendReminder 200 \\d+ ms sendReminder$`),
      ),
    );
    const cron = await platform(['cron', 'run', 'daily-digest', '--wait', '--app', app.path]);
    expect(cron.code).toBe(0);
    await eventually(async () =>
      expect(lines).toContainEqual(
        expect.stringMatching(/^cron daily-digest \S+ succeeded \(attempt 1, \d+ ms\)$/),
      ),
    );
    // The query (which may carry a key) is never printed; a pipe gets no escape sequences.
    expect(lines.join('\n')).not.toContain('not-printed');
    expect(lines.join('\n')).not.toContain('\x1b[');
    // The Functions' own calls to the broker are printed only with --verbose.
    expect(lines.some((line) => line.includes('/_platform/runtime/'))).toBe(false);
  });

  it('platform invoke explains a missing broker and bad arguments', async () => {
    const none = await platform(['invoke', 'listTodos', '--app', join(app.path, 'functions')]);
    expect(none).toMatchObject({ code: 1 });
    expect(none.stderr).toContain('No platform dev is running');
    expect((await platform(['invoke', 'x', '{oops', '--app', app.path])).code).toBe(2);
  });

  it('stops on SIGTERM with its Deno processes', async () => {
    await callEveryFunction(app.path, url);
    const deno = childrenOf(child!.pid!);
    expect(deno.length).toBe(14);
    child!.kill('SIGTERM');
    expect(await exitOf(child!)).toBe(0);
    expect(deno.filter(alive)).toEqual([]);
    expect(lines).toContain('Stopping (SIGTERM)...');
  });

  it('leaves no Deno process behind when it is SIGKILLed', async () => {
    const again = spawnPlatform(['dev', app.path, '--port', '0']);
    const more: string[] = [];
    await callEveryFunction(app.path, await waitForUrl(again, more));
    const deno = childrenOf(again.pid!);
    expect(deno.length).toBe(14);
    again.kill('SIGKILL');
    await exitOf(again);
    await eventually(async () => expect(deno.filter(alive)).toEqual([]), 10_000);
  });

  it('refuses to start on manifest errors, printing the diagnostics', async () => {
    const broken = await copyExample();
    try {
      await writeFile(
        join(broken.path, 'platform.yaml'),
        'schemaVersion: 3\nruntime:\n  sdk:\n    version: 2.6.0\nfunctions:\n  - name: a\n    entrypoint: functions/missing.ts\n    access: everyone\n',
      );
      const result = await platform(['dev', broken.path, '--port', '0']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/platform\.yaml:8:\d+ error FUNCTION_ACCESS_INVALID/);
      expect(result.stderr).toContain('not starting');
      expect(result.stdout).not.toMatch(/^http/m);
    } finally {
      await broken.remove();
    }
  });
});
