// Forged terminal lines: a Function's log messages and output, and an address typed into the
// sign-in form, must never print as extra lines of the developer's terminal (a fake sign-in link)
// nor send escape sequences to it (erase a line, move the cursor, set the window title).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobLine } from '../../src/cli/jobs.ts';
import type { Job } from '../../src/jobs/job-rows.ts';
import { printableError } from '../../src/logs/printable.ts';
import { authBroker, FakeBrowser } from '../auth/helpers.ts';

// Any C0 control but tab, DEL, C1, the Unicode line separators and the bidirectional overrides.
const UNPRINTABLE = /(?!\t)[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const FORGED =
  '12:00:00.000 INFO  [auth] Sign in to notes (ada@example.com, valid 15 minutes): http://evil.example/confirm';

let env: Awaited<ReturnType<typeof authBroker>>;

beforeAll(async () => {
  env = await authBroker({
    auth: { ownerEmail: 'owner@example.com', registration: true, visibility: 'public' },
    files: {
      'functions/noisy.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: ({ log }) => {
    log.info(${JSON.stringify(`saved\n${FORGED}\u001b[1A\u001b[2K`)}, { note: 'a\\u001b[31mred\\u2028b' });
    console.log(${JSON.stringify(`out\r${FORGED} \u001b]0;pwned\u0007`)});
    console.error(${JSON.stringify('err \u009b2J \u202eevil')});
    return 1;
  },
});
`,
    },
  });
  await env.broker.addFunction({
    name: 'noisy',
    entrypoint: 'functions/noisy.ts',
    access: 'public',
  });
});
afterAll(() => env?.cleanup());

const printedLines = () => env.lines.flatMap((line) => line.split('\n'));

describe('printed lines cannot be forged', () => {
  it("escapes a Function's log message, fields, stdout and stderr", async () => {
    const response = await env.broker.app.request('/_platform/api/functions/noisy', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await response.json()).toEqual({ result: 1 });
    const noisy = env.lines.filter((line) => line.includes('[noisy]'));
    expect(noisy).toHaveLength(3);
    for (const line of noisy) expect(line).not.toMatch(UNPRINTABLE);
    // The forged text is still there for the developer to read, escaped, inside the real line.
    expect(noisy.find((l) => l.includes(' INFO  [noisy]'))).toContain(
      `saved\\n${FORGED}\\x1b[1A\\x1b[2K`,
    );
    // Fields print as JSON, which escapes C0 controls itself; U+2028 it leaves to us.
    expect(noisy.find((l) => l.includes(' INFO  [noisy]'))).toContain('a\\u001b[31mred\\u2028b');
    expect(noisy.find((l) => l.startsWith('OUT'))).toContain(`out\\r${FORGED} \\x1b]0;pwned\\x07`);
    expect(noisy.find((l) => l.startsWith('ERR'))).toContain('err \\x9b2J \\u202eevil');
    // No printed line of any kind starts as the forged one, and none holds a control character.
    for (const line of printedLines()) {
      expect(line.startsWith('12:00:00.000 INFO  [auth]')).toBe(false);
      expect(line).not.toMatch(/(?![\t\n])\p{Cc}/u);
    }
    // The ring the dashboard reads keeps the message as the Function wrote it.
    const entry = env.broker.logs.list({ functionName: 'noisy' })[0];
    expect(entry?.message).toBe(`saved\n${FORGED}\u001b[1A\u001b[2K`);
  });

  it('refuses an address with an escape sequence or a NUL in the sign-in form, printing nothing', async () => {
    for (const email of [
      'ada@example.com\u001b[2K',
      'ada\u0000@example.com',
      'ada@exa\u202emple.com',
    ]) {
      const before = env.lines.length;
      const browser = new FakeBrowser(env.broker);
      const csrf = await browser.csrf();
      const response = await browser.request('/_platform/auth/email-link', {
        form: { email, returnTo: '/', csrf },
      });
      // A NUL is refused before the form is read (INVALID_REQUEST); the others re-show the form.
      expect(response.status).toBe(400);
      if (!email.includes('\u0000'))
        expect(await response.text()).toContain('Enter an email address.');
      expect(env.lines.slice(before).join('\n')).not.toContain('[auth]');
    }
  });

  it('prints a broker error with its message escaped and its stack frames on their own lines', () => {
    const error = new Error(`bad value\n${FORGED}`);
    const printed = printableError(error).split('\n');
    expect(printed[0]).toBe(`Error: bad value\\n${FORGED}`);
    expect(printed.slice(1).every((line) => line.startsWith('    at '))).toBe(true);
    expect(printed.length).toBeGreaterThan(1);
  });

  it("prints a job's stored error on one line in `platform jobs`", () => {
    const job = {
      createdAt: '2026-01-01T00:00:00.000Z',
      id: 'job_1',
      queue: 'q',
      state: 'retry_wait',
      attempt: 1,
      maxAttempts: 5,
      lastError: { code: 'FUNCTION_FAILED', message: `boom\n${FORGED}\u001b[2K` },
    } as unknown as Job;
    const line = jobLine(job);
    expect(line).not.toMatch(UNPRINTABLE);
    expect(line).toContain(`boom\\n${FORGED}\\x1b[2K`);
  });
});
