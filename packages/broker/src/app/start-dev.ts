import { join, resolve } from 'node:path';
import { isPlatformError } from '@platform/errors';
import { type Diagnostic, formatDiagnostic, type Manifest } from '@platform/schema/manifest';
import { mountAppRoutes } from '../api/app-routes.ts';
import { mountBrokerApi } from '../api/dev-api.ts';
import { FRONTEND_DIR, Frontend } from '../api/frontend.ts';
import { RouteTable } from '../api/route-table.ts';
import { applyMigrations } from '../db/migrations.ts';
import { dashboardPaths } from '../http/paths.ts';
import type { Clock } from '../kernel/clock.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { clearDevState, newDevToken, writeDevState } from '../project/dev-state.ts';
import { loadManifest, MANIFEST_FILE } from '../project/manifest.ts';
import { declarationsOf, functionsOf } from './app-config.ts';
import { type Broker, type BrokerOptions, startBroker } from './start-broker.ts';
import { appRelative, watchApp } from './watcher.ts';

/** How to run `platform dev`. */
export interface DevOptions {
  /** The app folder holding platform.yaml. */
  readonly appDir: string;
  /** Port on 127.0.0.1; `0` picks a free one. @default 0 */
  readonly port?: number;
  /** Re-bundle changed Functions, reload platform.yaml, apply new migrations. @default true */
  readonly watch?: boolean;
  /** Where every line is printed. @default console.log */
  readonly logWriter?: LogWriter;
  /** Passed to `startBroker` (tests: a test identity, an in-memory database, a snapshot). */
  readonly authenticate?: BrokerOptions['authenticate'];
  readonly databaseUrl?: string | undefined;
  readonly snapshotPath?: string | undefined;
  readonly inMemory?: boolean;
  /** Time source of sign-in, jobs and cron (tests advance it instead of waiting). @default the machine's */
  readonly clock?: Clock;
}

/** platform.yaml has errors: nothing was started. */
export class ManifestInvalidError extends Error {
  readonly errors: readonly Diagnostic[];
  constructor(errors: readonly Diagnostic[]) {
    super(`${MANIFEST_FILE} has ${errors.length} error(s)`);
    this.name = 'ManifestInvalidError';
    this.errors = errors;
  }
}

/** A running `platform dev`. */
export interface DevServer {
  /** `http://localhost:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The current broker (a changed platform.yaml starts a new one on the same port). */
  readonly broker: Broker;
  /** Milliseconds from the call to ready. */
  readonly readyMs: number;
  /** The dashboard's dev-token link (`/_platform/dashboard?key=<dev token>`): opens it without signing in. */
  readonly dashboardUrl: string;
  /** Settles once every change seen so far has been applied (tests). */
  settled(): Promise<void>;
  /** Stops watching, every Function process, the server and the database. */
  close(): Promise<void>;
}

/**
 * Runs an app: validates platform.yaml (throws {@link ManifestInvalidError} on errors), starts
 * the broker with the manifest's SDK pin and declarations, bundles and starts every Function,
 * mounts the Function routes, the broker API and the frontend (`public/`), and watches the app.
 *
 * @example
 * ```ts
 * const dev = await startDev({ appDir: 'examples/todo', port: 0 });
 * console.log(dev.url);
 * await dev.close();
 * ```
 */
export async function startDev(options: DevOptions): Promise<DevServer> {
  const started = performance.now();
  const appDir = resolve(options.appDir);
  const print = options.logWriter ?? ((line: string) => console.log(line));
  const loaded = await loadManifest(appDir);
  if (!loaded.manifest || loaded.errors.length > 0) throw new ManifestInvalidError(loaded.errors);
  for (const warning of loaded.warnings) print(formatDiagnostic(warning, MANIFEST_FILE));
  const devToken = newDevToken();
  const frontend = new Frontend(appDir);
  /** Files each Function's bundle was built from. */
  const inputs = new Map<string, Set<string>>();
  let routes = new RouteTable([]);

  const launch = async (manifest: Manifest, port: number): Promise<Broker> => {
    routes = RouteTable.fromManifest(manifest);
    const broker = await startBroker({
      appDir,
      port,
      sdkVersion: manifest.runtime.sdk.version,
      declared: declarationsOf(manifest),
      searches: manifest.data.search,
      jobs: {
        queues: manifest.queues,
        cron: manifest.cron,
        ...(options.clock ? { clock: options.clock } : {}),
      },
      auth: {
        visibility: manifest.visibility,
        print,
        devToken,
        ...(options.clock ? { clock: options.clock } : {}),
      },
      logWriter: print,
      databaseUrl: options.databaseUrl,
      snapshotPath: options.snapshotPath,
      ...(options.inMemory ? { inMemory: true } : {}),
      ...(options.authenticate ? { authenticate: options.authenticate } : {}),
      mount: (app, services) => {
        mountBrokerApi(app, { invoker: services.invoker, devToken });
        mountAppRoutes(app, { routes: () => routes, ...services });
        frontend.mount(app);
      },
    });
    try {
      inputs.clear();
      await Promise.all(
        functionsOf(manifest).map(async (fn) => {
          const bundle = await broker.addFunction(fn);
          inputs.set(fn.name, new Set(bundle.inputs));
        }),
      );
    } catch (error) {
      await broker.close();
      throw error;
    }
    return broker;
  };

  let manifest = loaded.manifest;
  let broker = await launch(manifest, options.port ?? 0);
  const port = broker.server.port;
  const url = broker.server.url;
  await writeDevState(appDir, { url, pid: process.pid, token: devToken });

  let queue: Promise<void> = Promise.resolve();
  const apply = async (paths: ReadonlySet<string>): Promise<void> => {
    const names = [...paths].map((path) => appRelative(appDir, path));
    if (names.includes(MANIFEST_FILE)) {
      const next = await loadManifest(appDir);
      if (!next.manifest || next.errors.length > 0) {
        for (const d of next.errors) print(formatDiagnostic(d, MANIFEST_FILE));
        print(`${MANIFEST_FILE} has errors; still serving the previous version.`);
        return;
      }
      print(`${MANIFEST_FILE} changed; restarting the app.`);
      await broker.close();
      try {
        broker = await launch(next.manifest, port);
        manifest = next.manifest;
      } catch (error) {
        print(`The new ${MANIFEST_FILE} could not start: ${describe(error)}`);
        broker = await launch(manifest, port);
      }
      return;
    }
    if (names.some((name) => name.startsWith('migrations/') && name.endsWith('.sql'))) {
      try {
        const report = await applyMigrations(broker.db, join(appDir, 'migrations'));
        broker.data.catalog.invalidate();
        if (report.applied.length > 0) print(`Applied migrations: ${report.applied.join(', ')}`);
        // A migration may change a filter column's type or recreate a searched table (dropping
        // its GIN index): prepare the searches again now, as at startup, and report what no
        // longer fits.
        broker.search?.invalidate();
        for (const { name, problem } of (await broker.search?.prepare()) ?? []) {
          if (problem) print(`WARN  search ${name}: ${problem}`);
        }
      } catch (error) {
        print(describe(error));
      }
    }
    if (names.some((name) => name.startsWith(`${FRONTEND_DIR}/`))) frontend.invalidate();
    const declared = functionsOf(manifest);
    await Promise.all(
      declared
        .filter((fn) => [...paths].some((path) => inputs.get(fn.name)?.has(path)))
        .map(async (fn) => {
          try {
            const bundle = await broker.addFunction(fn);
            inputs.set(fn.name, new Set(bundle.inputs));
            print(`Reloaded Function ${fn.name} (${bundle.milliseconds} ms bundle).`);
          } catch (error) {
            print(`${describe(error)}\nStill running the previous version of ${fn.name}.`);
          }
        }),
    );
  };
  const watcher =
    options.watch === false
      ? undefined
      : watchApp(appDir, (paths) => {
          queue = queue.then(() => apply(paths)).catch((error) => print(describe(error)));
        });

  return {
    url,
    port,
    get broker() {
      return broker;
    },
    readyMs: Math.round(performance.now() - started),
    dashboardUrl: `${url}${dashboardPaths.page}?key=${devToken}`,
    settled: async () => {
      // Let the watcher's debounce deliver pending events before waiting on the queue.
      await new Promise((r) => setTimeout(r, 250));
      await queue;
    },
    close: async () => {
      watcher?.close();
      await queue.catch(() => undefined);
      await broker.close();
      await clearDevState(appDir);
    },
  };
}

function describe(error: unknown): string {
  if (isPlatformError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}
