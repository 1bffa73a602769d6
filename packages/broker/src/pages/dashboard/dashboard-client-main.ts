// The dashboard's browser entry: the bundle imports it and each section's script, then hands
// the scripts over with their section ids. It opens every section, marks the page ready once
// all have loaded, and refreshes the sections that move on their own every 5 s.
import { $, run, type SectionScript } from './dashboard-client-kit.ts';

/** Opens the sections' scripts (in page order) and refreshes them every 5 s. */
export function startDashboard(sections: readonly (readonly [string, SectionScript])[]): void {
  const withApi = sections.map(([id, script]) => ({
    script,
    api: JSON.parse($(id).dataset.api ?? '{}') as Record<string, string>,
  }));
  $('tz').textContent = Intl.DateTimeFormat().resolvedOptions().timeZone;
  run(async () => {
    await Promise.all(withApi.map(({ script, api }) => script.open(api)));
    document.body.dataset.ready = 'true';
  })();
  setInterval(
    run(() =>
      Promise.all(withApi.map(({ script, api }) => script.refresh?.(api))).then(() => undefined),
    ),
    5000,
  );
}
