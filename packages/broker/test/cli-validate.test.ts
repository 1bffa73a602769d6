import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { latestKnownSdkVersion } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../src/cli/io.ts';
import { main } from '../src/index.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const example = join(root, 'examples/todo');
const bin = join(root, 'packages/broker/src/bin.ts');

/** Runs `platform ...argv` in-process and captures its output. */
async function platform(argv: string[], cwd = root) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), cwd };
  const code = await main(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

let work: string;
/** A copy of the example app whose platform.yaml has `edit` applied. */
async function brokenCopy(name: string, edit: (text: string) => string): Promise<string> {
  const dir = join(work, name);
  await cp(example, dir, { recursive: true });
  const file = join(dir, 'platform.yaml');
  await writeFile(file, edit(await readFile(file, 'utf8')));
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'platform-validate-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('platform validate (in-process)', () => {
  it('passes on the example app', async () => {
    const { code, stdout } = await platform(['validate', 'examples/todo']);
    expect(stdout).toBe('examples/todo/platform.yaml: valid (0 errors, 0 warnings)');
    expect(code).toBe(0);
  });

  it('defaults to the current directory', async () => {
    const { code } = await platform(['validate'], example);
    expect(code).toBe(0);
  });

  it('prints compiler-style diagnostics and exits 1 on errors', async () => {
    const dir = await brokenCopy('consumer', (t) =>
      t.replace(
        'entrypoint: functions/send-reminder/index.ts\n    access: system',
        'entrypoint: functions/send-reminder/index.ts\n    access: user',
      ),
    );
    const { code, stdout } = await platform(['validate', dir], work);
    const text = await readFile(join(dir, 'platform.yaml'), 'utf8');
    const line = text.split('\n').findIndex((l) => l.includes('function: sendReminder')) + 1;
    expect(stdout.split('\n')[0]).toMatch(
      new RegExp(
        `^consumer/platform\\.yaml:${line}:15 error QUEUE_CONSUMER_NOT_SYSTEM .*access: system.* \\(at queues\\[0\\]\\.function\\)$`,
      ),
    );
    expect(stdout.split('\n').at(-1)).toBe('consumer/platform.yaml: 1 error, 0 warnings');
    expect(code).toBe(1);
  });

  it('reports bundling errors at the importing file', async () => {
    const dir = await brokenCopy('imports', (t) => t);
    await writeFile(
      join(dir, 'functions/create-todo/title.ts'),
      "export { x } from '../get-todo/index.ts';\n",
    );
    const { code, stdout } = await platform(['validate', 'imports'], work);
    expect(stdout).toContain(
      'imports/functions/create-todo/title.ts:1:19 error IMPORT_OUTSIDE_FUNCTION_DIR',
    );
    expect(code).toBe(1);
  });

  it('prints JSON with --json', async () => {
    const dir = await brokenCopy('json', (t) =>
      t.replace(/schedule: .*/, "schedule: '0 8 * * * *'"),
    );
    const { code, stdout } = await platform(['validate', dir, '--json']);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ ok: false, appDir: dir, warnings: [] });
    expect(report.errors).toEqual([
      expect.objectContaining({
        code: 'CRON_SCHEDULE_INVALID',
        path: 'cron[0].schedule',
        file: 'platform.yaml',
        severity: 'error',
      }),
    ]);
    expect(code).toBe(1);
  });

  it('exits 0 with warnings only', async () => {
    // A major past the newest version this validator knows, whatever the release.
    const newer = `${Number(latestKnownSdkVersion.split('.')[0]) + 1}.0.0`;
    const dir = await brokenCopy('warn', (t) => t.replace('version: 2.6.0', `version: ${newer}`));
    const { code, stdout } = await platform(['validate', dir, '--json']);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: true,
      errors: [],
      warnings: [{ code: 'SDK_VERSION_UNKNOWN' }],
    });
    expect(code).toBe(0);
  });

  it('reports a missing platform.yaml', async () => {
    const { code, stdout } = await platform(['validate', work, '--json']);
    expect(JSON.parse(stdout).errors[0].code).toBe('MANIFEST_NOT_FOUND');
    expect(code).toBe(1);
  });

  it('checks slots against --organisation apps', async () => {
    const provider = join(work, 'provider');
    await cp(join(root, 'packages/schema/test/manifest/fixtures/full'), provider, {
      recursive: true,
    });
    const consumer = await brokenCopy(
      'consumer-slot',
      (t) =>
        `${t}integrations:\n  crm:\n    provider: custom\n    integration: acme-crm\n    account: calling_user\n    capabilities: [contacts.read, contacts.delete]\n`,
    );
    const { code, stdout } = await platform(['validate', consumer, '--organisation', provider]);
    expect(stdout).toMatch(/platform\.yaml:\d+:35 warning INTEGRATION_CAPABILITY_NOT_OFFERED/);
    expect(code).toBe(0);
  });

  it('rejects unknown commands and options with exit code 2', async () => {
    expect((await platform(['deploi'])).code).toBe(2);
    expect((await platform(['validate', '--jsn'])).code).toBe(2);
    expect((await platform(['validate', 'a', 'b'])).code).toBe(2);
    expect((await platform([])).code).toBe(2);
    const help = await platform(['--help']);
    expect(help.stdout).toContain('validate');
    expect(help.code).toBe(0);
    expect((await platform(['validate', '--help'])).stdout).toContain('--json');
  });
});

describe('platform validate (subprocess)', () => {
  const run = promisify(execFile);
  const spawnPlatform = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    run(process.execPath, ['--conditions=@platform/source', bin, ...args], {
      cwd: root,
      env,
    }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );

  it('passes on the example app and fails on a broken copy', async () => {
    const ok = await spawnPlatform(['validate', 'examples/todo']);
    expect(ok).toEqual({
      code: 0,
      stdout: 'examples/todo/platform.yaml: valid (0 errors, 0 warnings)\n',
    });
    const dir = await brokenCopy('subprocess', (t) =>
      t.replace('access: public', 'access: everyone'),
    );
    const failed = await spawnPlatform(['validate', dir]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/platform\.yaml:\d+:13 error FUNCTION_ACCESS_INVALID /);
  });

  it("keeps Node's compiled code of the CLI in the platform cache for the next start", async () => {
    const cache = await mkdtemp(join(tmpdir(), 'platform-cache-'));
    try {
      const ok = await spawnPlatform(['validate', 'examples/todo'], {
        ...process.env,
        PLATFORM_CACHE_DIR: cache,
      });
      expect(ok.code).toBe(0);
      const compiled = await readdir(join(cache, 'node-compile-cache'), { recursive: true });
      expect(compiled.length).toBeGreaterThan(0);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
