import type { ConsoleGroupId } from './console-groups.ts';

/**
 * What a feature contributes to the app console (`/_platform/dashboard`): a section under one
 * entry of the console's navigation (`group`), the owner API paths its script reads, and that
 * script. The console knows no feature; the composition root hands it the sections of the
 * features a broker runs, in page order.
 *
 * @example
 * ```ts
 * export const aiSection: DashboardSection = {
 *   id: 'ai-section',
 *   group: 'ai',
 *   title: 'AI calls',
 *   api: { calls: ownerApiPaths.aiCalls },
 *   html: '<table id="ai-calls">...</table>',
 *   script: 'ai/ai-section-client.ts',
 * };
 * ```
 */
export interface DashboardSection {
  /** The `<section>` element's id, unique on the page (tests and the script find it by it). */
  readonly id: string;
  /** The section's heading. */
  readonly title: string;
  /**
   * The console's navigation entry the section shows under (`consoleGroups`); a feature may
   * name a group of its own, which gets its own entry after the known ones.
   * @default the section's own id (an entry of its own)
   */
  readonly group?: ConsoleGroupId | (string & {});
  /**
   * The owner API paths the script reads, by name; `:appId` in a path becomes the app's id.
   * The script receives them filled (`open(api)`), from the section's `data-api` attribute.
   */
  readonly api: Readonly<Record<string, string>>;
  /**
   * The section's markup under its heading: tables and controls the script fills. Trusted and
   * static: it carries no data, and one that interpolates values is made with `markup` (which
   * escapes them) and passed as its string; the console inserts it as it is.
   */
  readonly html: string;
  /**
   * Hidden until the script shows it: for a section that has nothing to show on some brokers
   * (no organisation, no integrations).
   * @default false
   */
  readonly hidden?: boolean;
  /** CSS rules the section needs beyond the dashboard's own. */
  readonly style?: string;
  /**
   * The section's browser module, as a path under the broker package's `src/` (the published
   * package ships `src`, so the dashboard bundles it from there too). Its default export is a
   * `SectionScript` (`pages/dashboard/dashboard-client-kit.ts`).
   */
  readonly script: string;
}

/** `path` with `:appId` replaced by the app's id. */
export const fillAppId = (path: string, appId: string): string =>
  path.replace(':appId', encodeURIComponent(appId));
