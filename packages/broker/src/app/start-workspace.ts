import { basename, dirname, resolve, sep } from 'node:path';
import type { Manifest } from '@platform/schema/manifest';
import { AgentCredentials } from '../auth/agent-credentials.ts';
import { appDatabaseName, ensureDatabase } from '../db/database-per-app.ts';
import type { PrivateCluster } from '../db/private-cluster.ts';
import type { RunningServer } from '../http/serve.ts';
import { openOrgIntegrations } from '../integrations/org-integrations.ts';
import { systemClock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { type CentralAuthority, centralAuthority } from '../org/authority.ts';
import type { PublishingApp } from '../org/custom-integrations.ts';
import { Memberships } from '../org/memberships.ts';
import { loadAppId } from '../project/app-id.ts';
import { dashboardLinkKey, newDevToken } from '../project/dev-state.ts';
import { loadManifest } from '../project/manifest.ts';
import { startDevCluster } from './dev-cluster.ts';
import { usesPrivateCluster } from './dev-database-engine.ts';
import { openCentralStore } from './open-central.ts';
import { startOrgFront } from './org-front.ts';
import { describeError } from './reload.ts';
import { type DevOptions, type DevPreparation, type DevServer, startDev } from './start-dev.ts';
import { Teardown } from './teardown.ts';

/** How to run several apps of one organisation under one `platform dev`. */
export interface WorkspaceOptions
  extends Omit<
    DevOptions,
    'appDir' | 'port' | 'smtpPort' | 'appId' | 'hostName' | 'devToken' | 'otherApps'
  > {
  /** The app folders, in the order their ports are given. */
  readonly appDirs: readonly string[];
  /**
   * The first app's port; the next apps take the following ports, and the organisation's
   * `{base_url}` the one after them. `0` picks free ports for all. @default 0
   */
  readonly port?: number;
  /** The organisation's name. @default the name of the apps' common parent folder */
  readonly organisation?: string;
  /**
   * The workspace folder, which holds the central store: the folder of
   * `platform-workspace.yaml`. @default the apps' nearest common parent folder
   */
  readonly workspaceDir?: string;
}

/** A running workspace: every app's `platform dev` and the organisation's front. */
export interface WorkspaceServer {
  /** `{base_url}`: the organisation page and every app's owner API. */
  readonly url: string;
  readonly organisation: string;
  /** The apps in the order given, each with its own URL, database, files, secrets and jobs. */
  readonly apps: readonly DevServer[];
  /** The app with id `appId`. */
  app(appId: string): DevServer | undefined;
  /** The apps' authority facts in the organisation's central store. */
  readonly authority: CentralAuthority;
  /** The dev token all the apps share (each app's `.platform/dev.json` holds it). */
  readonly devToken: string;
  /** The organisation page's dev-token link (it shows the members too), for the terminal. */
  readonly dashboardUrl: string;
  /** Settles once every app has applied the changes seen so far (tests). */
  settled(): Promise<void>;
  /** Stops every app and the front. */
  close(): Promise<void>;
}

/**
 * Serves several apps of one organisation (docs/organisations.md): each app runs as its own
 * `platform dev` (its own port, database, files, secrets, jobs, cron and Functions) at
 * `http://<appId>.localhost:<port>`, so that browsers keep each app's cookies apart; the
 * organisation's `{base_url}` lists them and answers each app's owner API under its id. App
 * ids are unique in the workspace. A step that fails closes what the steps before it opened.
 *
 * @example
 * ```ts
 * const ws = await startWorkspace({ appDirs: ['apps/notes', 'apps/crm'], port: 4310 });
 * console.log(ws.apps.map((app) => app.url));
 * await ws.close();
 * ```
 */
export async function startWorkspace(options: WorkspaceOptions): Promise<WorkspaceServer> {
  const appDirs = options.appDirs.map((dir) => resolve(dir));
  if (appDirs.length === 0) throw new Error('A workspace needs at least one app folder.');
  const twice = appDirs.find((dir, i) => appDirs.indexOf(dir) !== i);
  if (twice) throw new Error(`${twice} is listed twice; each app folder runs once.`);
  const print: LogWriter = options.logWriter ?? ((line) => console.log(line));
  // The store and each app may find no prepared snapshot: the workspace says so once.
  let preparing = false;
  const onPreparing = (work: DevPreparation) => {
    if (preparing) return;
    preparing = true;
    options.onPreparing?.(work);
  };
  const organisation = options.organisation ?? (basename(commonParent(appDirs)) || 'organisation');
  const taken = new Set<string>();
  const ids: string[] = [];
  for (const dir of appDirs) {
    const id = await loadAppId(dir, taken);
    if (taken.has(id)) {
      throw new Error(
        `${dir} has the app id "${id}" of another app of this workspace (.platform/app.json); give it another id there.`,
      );
    }
    taken.add(id);
    ids.push(id);
  }
  const devToken = newDevToken();
  const teardown = new Teardown((error) => print(describeError(error)));
  return teardown.run(async () => {
    // One central store for the organisation, beside the app folders.
    const workspaceDir =
      options.workspaceDir === undefined ? commonParent(appDirs) : resolve(options.workspaceDir);
    let serverUrl =
      options.databaseUrl === undefined ? process.env.DATABASE_URL : options.databaseUrl;
    let cluster: PrivateCluster | undefined;
    if (usesPrivateCluster(options)) {
      // One server for the workspace, in its folder; closed after every database on it.
      const started = await startDevCluster(workspaceDir, options.snapshotPath, () =>
        onPreparing('the private PostgreSQL cluster'),
      );
      teardown.add(() => started.close());
      cluster = started;
      serverUrl = started.url;
    }
    // On a PostgreSQL server each app gets a database of its own (its migrations, roles and
    // backups stay its own); PGlite already keeps one data directory per app folder.
    const databaseUrls: (string | undefined)[] = [];
    for (const id of ids) {
      databaseUrls.push(serverUrl ? await ensureDatabase(serverUrl, appDatabaseName(id)) : '');
    }
    const central = await openCentralStore({
      dir: workspaceDir,
      databaseUrl: serverUrl ?? '',
      snapshotPath: options.snapshotPath,
      onPreparing: () => onPreparing('the embedded database'),
      ...(options.inMemory ? { inMemory: true } : {}),
    });
    teardown.add(() => central.close());
    const authority = centralAuthority(central);
    const apps: DevServer[] = [];
    // Each app's platform.yaml is checked against the others' (integration names, slots): the
    // ones not started yet as their folders hold them, the started ones as they serve.
    const pending = new Map<string, Manifest>();
    for (const [i, appDir] of appDirs.entries()) {
      const loaded = await loadManifest(appDir);
      if (loaded.manifest) pending.set(ids[i] as string, loaded.manifest);
    }
    const otherApps = (appId: string) => (): PublishingApp[] =>
      ids.flatMap((id) => {
        if (id === appId) return [];
        const manifest = apps.find((one) => one.appId === id)?.manifest ?? pending.get(id);
        return manifest ? [{ appId: id, manifest }] : [];
      });
    let baseUrl = '';
    const integrations = await openOrgIntegrations({
      central,
      dir: options.inMemory ? undefined : workspaceDir,
      apps: () => apps.map((one) => one.provider),
      baseUrl: () => baseUrl,
      print,
      clock: options.clock,
      ...(options.environment ? { environment: options.environment } : {}),
    });
    const first = options.port ?? 0;
    for (const [i, appDir] of appDirs.entries()) {
      const appId = ids[i] as string;
      const dev = await startDev({
        ...options,
        appDir,
        appId,
        hostName: `${appId}.localhost`,
        devToken,
        central,
        peers: () => apps.map((one) => ({ appId: one.appId, url: one.url })),
        otherApps: otherApps(appId),
        integrations,
        databaseUrl: databaseUrls[i],
        port: first === 0 ? 0 : first + i,
        logWriter: (line) => print(`[${appId}] ${line}`),
        onPreparing,
      });
      teardown.add(() => dev.close());
      apps.push(dev);
    }
    const front: RunningServer = await startOrgFront({
      organisation,
      apps: () => apps,
      devToken,
      members: new Memberships(central),
      agentCredentials: new AgentCredentials(central, options.clock ?? systemClock),
      central,
      clock: options.clock ?? systemClock,
      port: first === 0 ? 0 : first + appDirs.length,
      print,
    });
    teardown.add(() => front.close());
    baseUrl = front.url;
    // A second start on this workspace names this URL in its refusal.
    await cluster?.lock.announce(front.url);
    // Stopped before the apps close, so no sync or delivery starts on a closing app.
    integrations.start();
    teardown.add(() => integrations.stop());
    return {
      url: front.url,
      organisation,
      apps,
      authority,
      app: (appId) => apps.find((one) => one.appId === appId),
      devToken,
      dashboardUrl: `${front.url}/?key=${dashboardLinkKey(devToken)}`,
      settled: async () => {
        await Promise.all(apps.map((one) => one.settled()));
      },
      close: () => teardown.close(),
    };
  });
}

/** The deepest folder that holds every one of `dirs`. */
function commonParent(dirs: readonly string[]): string {
  let parent = dirname(dirs[0] as string);
  while (!dirs.every((dir) => dir.startsWith(parent.endsWith(sep) ? parent : parent + sep))) {
    parent = dirname(parent);
  }
  return parent;
}
