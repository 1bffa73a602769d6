// The console's browser entry: the bundle imports it and each section's script, then hands
// the scripts over with their section ids. It shows the panel the address's `#group` names,
// opens every section, marks the page ready once all have loaded, and refreshes the sections
// of the panel in view that move on their own every 5 s (and when their panel is shown). Navigation is plain links (Tab and Enter); moving to a
// panel puts the focus on it, so a keyboard or screen reader user lands on what they chose.
import { $, run, type SectionScript } from './dashboard-client-kit.ts';

const panels = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('.panel')];

/**
 * Shows the panel of `#group`. On opening, an unknown or empty one shows the first panel; later,
 * a hash that names no group (the skip link's `#main`) leaves the panel as it is.
 */
function showPanel(opening: boolean): void {
  const all = panels();
  const wanted = decodeURIComponent(location.hash.slice(1));
  const named = all.find((p) => p.dataset.group === wanted);
  if (named === undefined && !opening) return;
  const shown = named ?? all[0];
  if (!shown) return;
  for (const panel of all) {
    panel.hidden = panel !== shown;
    const link = document.querySelector(`#nav-${CSS.escape(panel.dataset.group ?? '')} a`);
    if (panel === shown) link?.setAttribute('aria-current', 'page');
    else link?.removeAttribute('aria-current');
  }
  document.body.dataset.group = shown.dataset.group ?? '';
  if (!opening) shown.focus();
}

/** Hides the navigation entry of a group whose sections all stay hidden (nothing to show). */
function hideEmptyGroups(): void {
  for (const panel of panels()) {
    const sections = [...panel.querySelectorAll<HTMLElement>('section')];
    const entry = document.getElementById(`nav-${panel.dataset.group ?? ''}`);
    if (entry) entry.hidden = sections.length > 0 && sections.every((s) => s.hidden);
  }
}

/** Opens the sections' scripts (in page order) and refreshes them every 5 s. */
export function startDashboard(sections: readonly (readonly [string, SectionScript])[]): void {
  const withApi = sections.map(([id, script]) => ({
    script,
    element: $(id),
    api: JSON.parse($(id).dataset.api ?? '{}') as Record<string, string>,
  }));
  // Only the panel in view refreshes: a hidden one (row counts, history) costs the broker
  // queries nobody reads. Each is brought up to date when it is shown again.
  const inView = () =>
    withApi.filter(({ element }) => !(element.closest('.panel') as HTMLElement | null)?.hidden);
  $('tz').textContent = Intl.DateTimeFormat().resolvedOptions().timeZone;
  showPanel(true);
  addEventListener('hashchange', () => {
    showPanel(false);
    run(() =>
      Promise.all(inView().map(({ script, api }) => script.refresh?.(api))).then(() => undefined),
    )();
  });
  run(async () => {
    await Promise.all(withApi.map(({ script, api }) => script.open(api)));
    hideEmptyGroups();
    document.body.dataset.ready = 'true';
  })();
  setInterval(
    run(() =>
      Promise.all(inView().map(({ script, api }) => script.refresh?.(api))).then(() => {
        hideEmptyGroups();
      }),
    ),
    5000,
  );
}
