import { join } from 'node:path';
import { isPlatformError } from '@platform/errors';
import { formatDiagnostic, type Manifest, type OrganisationApp } from '@platform/schema/manifest';
import { FRONTEND_DIR, type Frontend } from '../api/frontend.ts';
import { applyMigrations } from '../db/migrations.ts';
import { SerialQueue } from '../db/serial-queue.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { loadManifest, MANIFEST_FILE } from '../project/manifest.ts';
import { prepareSearches } from '../search/search-feature.ts';
import type { Broker } from './start-broker.ts';
import { appRelative } from './watcher.ts';

/** Starts a broker for one version of platform.yaml behind the dev's port (see `launchDevBroker`). */
export type LaunchBroker = (manifest: Manifest) => Promise<Broker>;

/** What {@link AppReloader} starts from. */
export interface AppReloaderOptions {
  /** The app folder (absolute). */
  readonly appDir: string;
  readonly print: LogWriter;
  readonly frontend: Frontend;
  /** Starts the broker of a changed platform.yaml (and of the previous one when that fails). */
  readonly launch: LaunchBroker;
  /**
   * Makes the port answer the retryable `APP_RESTARTING` until the next broker is started;
   * resolves once the requests the running broker is answering are done.
   */
  readonly pause: () => Promise<void>;
  /** The platform.yaml the running broker serves. */
  readonly manifest: Manifest;
  readonly broker: Broker;
  /** The organisation's other apps, for the organisation-level checks of a changed platform.yaml. */
  readonly organisation?: () => readonly OrganisationApp[];
}

/**
 * The running app of `platform dev` and what a changed file does to it, one batch after
 * another: a changed platform.yaml restarts the broker behind the same port, which answers the
 * retryable `APP_RESTARTING` meanwhile (an invalid one leaves the previous version serving; one
 * that fails to start brings the previous version back); new migrations are applied and the
 * searches prepared again; a change under `public/` drops the frontend's cache; a changed source
 * of a Function re-bundles and swaps that Function. Problems are printed, never thrown.
 */
export class AppReloader {
  readonly #options: AppReloaderOptions;
  readonly #queue = new SerialQueue();
  #manifest: Manifest;
  #broker: Broker;

  constructor(options: AppReloaderOptions) {
    this.#options = options;
    this.#manifest = options.manifest;
    this.#broker = options.broker;
  }

  /** The current broker (a restart replaces it). */
  /** The platform.yaml the app serves now. */
  get manifest(): Manifest {
    return this.#manifest;
  }

  get broker(): Broker {
    return this.#broker;
  }

  /** Queues a batch of changed files (absolute paths); batches apply in order. */
  changed(paths: ReadonlySet<string>): void {
    void this.#queue.run(() => this.#apply(paths)).catch((error) => this.#print(error));
  }

  /** Resolves once every batch queued so far has been applied. */
  settled(): Promise<void> {
    return this.#queue.run(async () => undefined);
  }

  /** Waits for the batch being applied, then closes the current broker. */
  async close(): Promise<void> {
    await this.settled();
    await this.#broker.close();
  }

  async #apply(paths: ReadonlySet<string>): Promise<void> {
    const names = [...paths].map((path) => appRelative(this.#options.appDir, path));
    if (names.includes(MANIFEST_FILE)) return this.#restart();
    if (names.some((name) => name.startsWith('migrations/') && name.endsWith('.sql'))) {
      await this.#migrate();
    }
    if (names.some((name) => name.startsWith(`${FRONTEND_DIR}/`))) {
      this.#options.frontend.invalidate();
    }
    await this.#rebundle(paths);
  }

  async #restart(): Promise<void> {
    const { appDir, print, launch } = this.#options;
    const next = await loadManifest(appDir, this.#options.organisation?.());
    if (!next.manifest || next.errors.length > 0) {
      for (const d of next.errors) print(formatDiagnostic(d, MANIFEST_FILE));
      print(`${MANIFEST_FILE} has errors; still serving the previous version.`);
      return;
    }
    print(`${MANIFEST_FILE} changed; restarting the app.`);
    // Callers get a retryable answer, not the old version half-closed, until the new one serves.
    await this.#options.pause();
    await this.#broker.close();
    try {
      this.#broker = await launch(next.manifest);
      this.#manifest = next.manifest;
    } catch (error) {
      print(`The new ${MANIFEST_FILE} could not start: ${describeError(error)}`);
      this.#broker = await launch(this.#manifest);
    }
  }

  async #migrate(): Promise<void> {
    const broker = this.#broker;
    try {
      const report = await applyMigrations(broker.db, join(this.#options.appDir, 'migrations'));
      broker.data.catalog.invalidate();
      if (report.applied.length > 0) {
        this.#options.print(`Applied migrations: ${report.applied.join(', ')}`);
      }
      // A migration may change a filter column's type or recreate a searched table (dropping
      // its GIN index): prepare the searches again now, as at startup, and report what no
      // longer fits.
      broker.search?.invalidate();
      await prepareSearches(broker.search, this.#options.print);
    } catch (error) {
      this.#print(error);
    }
  }

  async #rebundle(paths: ReadonlySet<string>): Promise<void> {
    const { functions } = this.#broker;
    await Promise.all(
      functions.changedBy(paths).map(async (name) => {
        try {
          const bundle = await functions.replace(name);
          this.#options.print(`Reloaded Function ${name} (${bundle.milliseconds} ms bundle).`);
        } catch (error) {
          this.#options.print(
            `${describeError(error)}\nStill running the previous version of ${name}.`,
          );
        }
      }),
    );
  }

  #print(error: unknown): void {
    this.#options.print(describeError(error));
  }
}

/** The message of an error as `platform dev` prints it. */
export function describeError(error: unknown): string {
  if (isPlatformError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}
