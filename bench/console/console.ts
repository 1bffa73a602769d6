// The app console in a headless Chromium (Debian's, as the broker's Chromium tests use):
// - how long the Overview takes to be ready (its data loaded) against the Jobs & cron panel,
//   the section the dashboard opened with before it became a console, in the same run;
// - how long after a Function call its log line reaches the open Logs (server-sent events)
//   (the page notes the arrival itself) against the time it reaches the terminal (the
//   broker's printed line), in the same call.
// As a suite of bench/run.ts: `console: () => import('./console/console.ts')`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { mountBrokerApi } from '../../packages/broker/src/api/dev-api.ts';
import { startBroker } from '../../packages/broker/src/app/start-broker.ts';
import { anonymousCaller } from '../../packages/broker/src/kernel/caller.ts';
import { median, type Row, row } from '../report.ts';

const LOADS = 7;
const CALLS = 7;
const DEV_TOKEN = 'bench-dev-token';

export async function run(): Promise<Row[]> {
  const appDir = await mkdtemp(join(tmpdir(), 'console-bench-'));
  await mkdir(join(appDir, 'functions'), { recursive: true });
  await writeFile(
    join(appDir, 'functions', 'hello.ts'),
    `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ n: s.number() }),
  handler: async (ctx) => { ctx.log.info('bench line ' + ctx.input.n); return { ok: true }; },
});`,
  );
  const printed = new Map<string, number>();
  const broker = await startBroker({
    appDir,
    appId: 'bench',
    sdkVersion: '2.6.0',
    inMemory: true,
    // A test identity: the console opens without sign-in, as on a developer's machine.
    authenticate: async () => anonymousCaller,
    logWriter: (line) => {
      const n = /bench line (\d+)/.exec(line)?.[1];
      if (n) printed.set(n, performance.now());
    },
    mount: (app, services) =>
      mountBrokerApi(app, { appId: 'bench', invoker: services.invoker, devToken: DEV_TOKEN }),
  });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    await broker.addFunction({ name: 'hello', entrypoint: 'functions/hello.ts', access: 'public' });
    const page = await (await browser.newContext()).newPage();
    const url = `${broker.server.url}/_platform/dashboard`;
    const ready = async (group: string) => {
      await page.goto('about:blank');
      const started = performance.now();
      await page.goto(`${url}#${group}`);
      await page.waitForSelector('body[data-ready="true"]');
      return performance.now() - started;
    };
    await ready('overview'); // warm: the bundle is built on the first request
    const overview: number[] = [];
    const jobs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      overview.push(await ready('overview'));
      jobs.push(await ready('jobs'));
    }
    await page.goto(`${url}#logs`);
    await page.waitForSelector('body[data-log-tail="open"]');
    // The page notes when each line is added, on the machine's clock (epoch milliseconds), so
    // no polling from here delays what is measured.
    await page.evaluate(() => {
      const arrived: Record<string, number> = {};
      (window as unknown as { arrived: typeof arrived }).arrived = arrived;
      const body = document.querySelector('#log-lines tbody') as Node;
      new MutationObserver(() => {
        const now = performance.timeOrigin + performance.now();
        for (const match of (body.textContent ?? '').matchAll(/bench line (\d+)/g)) {
          arrived[match[1] as string] ??= now;
        }
      }).observe(body, { childList: true, subtree: true });
    });
    const epoch = () => performance.timeOrigin + performance.now();
    const live: number[] = [];
    const terminal: number[] = [];
    for (let n = 0; n < CALLS; n++) {
      const started = epoch();
      const answer = await fetch(`${broker.server.url}/v1/apps/bench/invoke/hello`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEV_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { n } }),
      });
      await answer.arrayBuffer();
      const at = await page.waitForFunction(
        (k) => (window as unknown as { arrived: Record<string, number> }).arrived[String(k)],
        n,
      );
      live.push(((await at.jsonValue()) as number) - started);
      terminal.push((printed.get(String(n)) ?? Number.NaN) + performance.timeOrigin - started);
    }
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    return [
      row(
        `console: Overview ready (median of ${LOADS})`,
        ms(median(overview)),
        `${ms(median(jobs))} (Jobs & cron panel)`,
        median(overview) / median(jobs),
      ),
      row(
        `console: a call's log line live in Logs (median of ${CALLS})`,
        ms(median(live)),
        `${ms(median(terminal))} (printed in the terminal)`,
        median(live) / median(terminal),
      ),
    ];
  } finally {
    await browser.close();
    await broker.close();
    await rm(appDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
