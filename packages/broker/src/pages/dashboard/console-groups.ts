/**
 * The console's navigation: the groups a feature's section may name (`DashboardSection.group`),
 * in the order the navigation lists them. A group no section names is left out of the page; a
 * section naming a group missing here gets an entry of its own after these, titled by its id,
 * so a new feature can add a group without editing this list (it should add it, for the order).
 */
export const consoleGroups = [
  { id: 'overview', title: 'Overview' },
  { id: 'logs', title: 'Logs' },
  { id: 'functions', title: 'Functions' },
  { id: 'data', title: 'Data' },
  { id: 'files', title: 'Files' },
  { id: 'jobs', title: 'Jobs & cron' },
  { id: 'integrations', title: 'Integrations' },
  { id: 'ai', title: 'AI' },
  { id: 'email', title: 'Email' },
  { id: 'push', title: 'Push' },
  { id: 'realtime', title: 'Realtime' },
  { id: 'backups', title: 'Backups' },
  { id: 'access', title: 'Access' },
  { id: 'organisation', title: 'Organisation' },
] as const;

/** A group id of {@link consoleGroups}. */
export type ConsoleGroupId = (typeof consoleGroups)[number]['id'];

/** One entry of the console's navigation with the sections under it, in page order. */
export interface ConsoleGroup<Section> {
  readonly id: string;
  readonly title: string;
  readonly sections: readonly Section[];
}

/**
 * The sections arranged by group: the known groups in {@link consoleGroups} order, then unknown
 * ones in the order their first section comes; within a group, the sections' own order. A
 * section without a group belongs to the group of its own id.
 */
export function groupSections<
  Section extends { readonly id: string; readonly group?: string; readonly title: string },
>(sections: readonly Section[]): ConsoleGroup<Section>[] {
  const byGroup = new Map<string, Section[]>();
  for (const section of sections) {
    const id = section.group ?? section.id;
    byGroup.set(id, [...(byGroup.get(id) ?? []), section]);
  }
  const known: ConsoleGroup<Section>[] = consoleGroups.flatMap((group) => {
    const list = byGroup.get(group.id);
    return list ? [{ id: group.id, title: group.title, sections: list }] : [];
  });
  const knownIds = new Set<string>(consoleGroups.map((g) => g.id));
  const extra = [...byGroup]
    .filter(([id]) => !knownIds.has(id))
    .map(([id, list]) => ({
      id,
      title: list.length === 1 && section0(list).id === id ? section0(list).title : id,
      sections: list,
    }));
  return [...known, ...extra];
}

const section0 = <T>(list: readonly T[]): T => list[0] as T;
