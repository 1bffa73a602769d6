// The integrations guide's "A first live call", followed as written: its commands are read from
// docs/integrations.md and run against `platform dev --workspace` of a copy of
// examples/sales-crm (real processes), as the person the guide names, with the API key it
// describes, until the CRM answers through the sales app.
import type { ChildProcess } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitOf, platform, root, spawnPlatform, waitForUrl } from '../e2e/helpers.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let copy: { path: string; remove: () => Promise<void> };
let dev: ChildProcess | undefined;
const lines: string[] = [];

beforeAll(async () => {
  copy = await tempDir('sales-crm-guide-');
  const source = join(root, 'examples/sales-crm');
  await cp(source, copy.path, {
    recursive: true,
    filter: (path) => !path.includes(`${join('/', '.platform')}`),
  });
  dev = spawnPlatform(['dev', '--workspace', copy.path, '--port', '0']);
  // A workspace prints each app's URL beside its name, then the organisation's line.
  // Only to collect the output: a workspace prints no bare URL line, so this never resolves.
  void waitForUrl(dev, lines, 170_000).catch(() => undefined);
  const until = Date.now() + 150_000;
  while (!lines.some((line) => line.startsWith('Organisation: '))) {
    if (dev.exitCode !== null || Date.now() > until) {
      throw new Error(`platform dev --workspace did not start:\n${lines.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 180_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    dev.kill('SIGTERM');
    await exitOf(dev).catch(() => dev?.kill('SIGKILL'));
  }
  await copy?.remove();
});

it('the guide reaches a live call: connect and bind, go live, call', {
  timeout: 120_000,
}, async () => {
  const guide = await readFile(join(root, 'docs/integrations.md'), 'utf8');
  const section = /### A first live call\n([\s\S]*?)\n#{2,3} /.exec(guide)?.[1] ?? '';
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  expect(block).toBeDefined();
  const steps = (block ?? '').split('\n').filter((line) => !line.startsWith('#'));
  const key = /API key that begins with crm_, e\.g\. (crm_\w+)/.exec(block ?? '')?.[1];
  expect(key).toBeDefined();
  const answer = /The last command answers `([^`]+)`/.exec(section)?.[1];
  expect(answer).toBeDefined();

  // `npm run platform -- <args>` is the CLI from the sources, in the copy instead of examples/.
  const cli = (line: string) =>
    platform(
      line
        .replace(/^npm run platform -- /, '')
        .replaceAll('examples/sales-crm', copy.path)
        .split(' '),
    );
  const [connect, live, curl] = steps;
  expect(connect).toMatch(/^npm run platform -- integrations connect /);
  const connected = await cli(connect as string);
  expect(connected).toMatchObject({ code: 0 });
  const link = connected.stdout.split('\n').find((line) => line.startsWith('http'));
  expect(link).toBeDefined();
  // The connect page's form, submitted with the key the guide describes.
  const page = await fetch(link as string);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('CRM_API_KEY');
  const submitted = await fetch(link as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ CRM_API_KEY: key as string, CRM_REGION: '' }).toString(),
  });
  expect(submitted.status).toBe(200);

  expect(live).toMatch(/^npm run platform -- integrations live crm /);
  expect(await cli(live as string)).toMatchObject({ code: 0 });

  // curl -X POST http://sales.localhost:<port>/... -H '...' -d '<body>': Node does not resolve
  // `<app>.localhost`, and the app's port on loopback is the same server.
  const call = /^curl -X POST http:\/\/sales\.localhost:<port>(\S+) -H '[^']+' -d '([^']+)'$/.exec(
    curl ?? '',
  );
  expect(call).not.toBeNull();
  const port = lines
    .map((line) => /^sales\s+http:\/\/sales\.localhost:(\d+)$/.exec(line)?.[1])
    .find((found) => found !== undefined);
  expect(port).toBeDefined();
  const response = await fetch(`http://127.0.0.1:${port}${call?.[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: call?.[2] ?? null,
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(JSON.parse(text)).toEqual(JSON.parse(answer as string));
});
