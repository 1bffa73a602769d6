// `platform app access-token request` as a user runs it: the CLI in its own process, a real
// Secret Service (GNOME Keyring on a private D-Bus) or none, the owner approving in a browser.
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecretService, startSecretService } from '../helpers/secret-service.ts';
import { authBroker, decideRequest, FakeBrowser, writeDevStateFor } from './helpers.ts';

const root = resolve(import.meta.dirname, '../../../..');
let env: Awaited<ReturnType<typeof authBroker>>;
let secrets: SecretService;

/** The CLI in a process of its own, with only `extraEnv` (no D-Bus of this machine's). */
const cliArgs = [
  '--conditions=@platform/source',
  '--import',
  'tsx',
  join(root, 'packages/broker/src/bin.ts'),
];

function cli(
  args: string[],
  extraEnv: NodeJS.ProcessEnv,
  onLine: (line: string) => void = () => {},
) {
  const child = spawn(process.execPath, [...cliArgs, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  const err: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    out.push(line);
    onLine(line);
  });
  createInterface({ input: child.stderr }).on('line', (line) => err.push(line));
  return new Promise<{ code: number | null; out: string; err: string }>((done) =>
    child.on('close', (code) => done({ code, out: out.join('\n'), err: err.join('\n') })),
  );
}

/**
 * Reads the CLI's lines as the approver would: the approval link, then the code it shows, and
 * approves as `email`, typing that code.
 */
const approverReading = (email: string) => {
  let approveUrl: string | undefined;
  return (line: string) => {
    approveUrl ??= /(http:\S+\/access-tokens\/requests\/\S+)/.exec(line)?.[1];
    const userCode = /the code ([A-Z]{4}-[A-Z]{4})/.exec(line)?.[1];
    if (approveUrl === undefined || userCode === undefined) return;
    const browser = new FakeBrowser(env.broker);
    void browser
      .signInByEmail(email)
      .then(() => decideRequest(browser, { approveUrl: approveUrl as string, userCode }));
  };
};

beforeAll(async () => {
  [env, secrets] = await Promise.all([authBroker(), startSecretService()]);
  await writeDevStateFor(env);
}, 120_000);
afterAll(async () => {
  await env?.cleanup();
  await secrets?.stop();
});

describe('platform app access-token request', { timeout: 60_000 }, () => {
  it('keeps the approved token in the Secret Service and never prints it', async () => {
    const ran = await cli(
      ['app', 'access-token', 'request', '--name', 'agent', '--app', env.appDir],
      secrets.env,
      approverReading('owner@localhost'),
    );
    expect(ran.code, ran.err).toBe(0);
    expect(ran.out).toMatch(/the code [A-Z]{4}-[A-Z]{4}/);
    expect(ran.out).toContain('Kept tok_');
    expect(`${ran.out}${ran.err}`).not.toMatch(/plat_app_[\w-]{10}/);
    const kept = await secrets.lookup(`app-access-token/${env.broker.appId}`);
    expect(kept).toMatch(/^plat_app_[\w-]{43}$/);
    const rest = await fetch(`${env.broker.server.url}/rest/v1/notes`, {
      headers: { authorization: `Bearer ${kept}` },
    });
    // The app has no notes table here: what matters is that the token is admitted.
    expect(rest.status).not.toBe(401);
  });

  it('platform agent login keeps an agent credential there the same way', async () => {
    const ran = await cli(
      ['agent', 'login', '--app', env.appDir],
      secrets.env,
      approverReading('owner@localhost'),
    );
    expect(ran.code, ran.err).toBe(0);
    expect(`${ran.out}${ran.err}`).not.toMatch(/plat_agent_[\w-]{10}/);
    const kept = await secrets.lookup(`agent/${env.broker.appId}`);
    expect(kept).toMatch(/^plat_agent_[\w-]{43}$/);
    const jobs = await fetch(`${env.broker.server.url}/v1/apps/${env.broker.appId}/jobs`, {
      headers: { authorization: `Bearer ${kept}` },
    });
    expect(jobs.status).toBe(200);
    // platform mcp --agent acts with it: the tools' twins carry the agent credential.
    const agent = new Client({ name: 'agent', version: '1.0.0' });
    await agent.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...cliArgs, 'mcp', '--full', '--agent', '--app', env.appDir],
        cwd: root,
        env: { PATH: process.env.PATH ?? '', ...(secrets.env as Record<string, string>) },
        stderr: 'pipe',
      }),
    );
    try {
      const listed = await agent.callTool({
        name: 'list_background_jobs',
        arguments: { appId: env.broker.appId },
      });
      expect(listed.isError).toBeFalsy();
      // Logging out revokes and forgets it: the running server's next call is refused, so it
      // was the agent's credential that the tools sent.
      const out = await cli(['agent', 'logout', '--app', env.appDir], secrets.env);
      expect(out.code, out.err).toBe(0);
      expect(await secrets.lookup(`agent/${env.broker.appId}`)).toBeUndefined();
      const refused = (await agent.callTool({
        name: 'list_background_jobs',
        arguments: { appId: env.broker.appId },
      })) as { isError?: boolean; content: { text?: string }[] };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^AUTH_REQUIRED/);
    } finally {
      await agent.close();
    }
  });

  it('says clearly when no credential store answers, and asks nothing', async () => {
    const { rows: before } = await env.broker.db.query(
      'select id from platform.app_token_requests',
    );
    const ran = await cli(['app', 'access-token', 'request', '--app', env.appDir], {
      HOME: secrets.home,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(secrets.home, 'no-bus-here')}`,
    });
    expect(ran.code).toBe(1);
    expect(ran.err).toContain('CREDENTIAL_STORE_UNAVAILABLE');
    expect(ran.err).toContain('No Secret Service');
    const { rows: after } = await env.broker.db.query('select id from platform.app_token_requests');
    expect(after).toHaveLength(before.length);
    // Nothing written in the home folder either (the keyring's own files aside).
    const files = await readdir(secrets.home, { recursive: true });
    expect(files.filter((f) => !f.startsWith('.local') && !f.startsWith('.cache'))).toEqual([]);
  });
});
