// The dashboard's Agent Feed section, in the browser: the same answer agents read, refreshed.
import {
  $,
  fill,
  get,
  localTime,
  row,
  type SectionScript,
} from '../../pages/dashboard/dashboard-client-kit.ts';
import type { AgentFeed } from '../feed/agent-feed.ts';

type Api = { readonly feed: string };

async function load(api: Api): Promise<void> {
  const feed = await get<AgentFeed>(api.feed, {});
  for (const [name, count] of Object.entries(feed.signals)) {
    $(`feed-${name.slice('jobs.'.length)}`).textContent = String(count);
  }
  const alert = feed.alerts[0];
  const line = $('feed-alert');
  line.textContent = alert ? alert.message : '';
  line.className = alert?.state === 'firing' ? 'alert-firing' : 'alert-ok';
  $('feed-window').textContent =
    `Signals from ${localTime(feed.window.from)} to ${localTime(feed.window.to)}.`;
  fill(
    'feed-failures',
    feed.failures.map((f) =>
      row([
        localTime(f.at),
        f.jobId,
        f.queue,
        f.state,
        `${f.attempt}/${f.maxAttempts}`,
        `${f.error.code}: ${f.error.message}`,
      ]),
    ),
    'No job failed in this window.',
    6,
  );
}

export default { open: load, refresh: load } satisfies SectionScript<keyof Api>;
