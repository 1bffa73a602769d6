import type { CronDeclaration, QueueDeclaration } from '@platform/schema/manifest';
import type { Database } from '../db/database.ts';
import type { FileService } from '../files/file-service.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import type { Clock } from '../kernel/clock.ts';
import { adoptLocalRows } from './adopt-local-rows.ts';
import { CronScheduler } from './cron/cron-scheduler.ts';
import type { JobScope } from './job-policy.ts';
import { JobService } from './job-service.ts';
import { type AttemptReport, JobWorker } from './job-worker.ts';

/** The jobs and cron part of `BrokerOptions`. */
export interface BrokerJobsOptions {
  /** platform.yaml `queues[]`. @default [] */
  readonly queues?: readonly QueueDeclaration[];
  /** platform.yaml `cron[]`. @default [] */
  readonly cron?: readonly CronDeclaration[];
  /** @default { appId: 'local', environment: 'development', namespace: 'default' } */
  readonly scope?: JobScope;
  readonly clock?: Clock;
  /** Lease of a running attempt in seconds. @default 30 */
  readonly leaseSeconds?: number;
  /** @default 500 */
  readonly pollMs?: number;
  /** Attempts this broker runs at once. @default 32 */
  readonly maxInFlight?: number;
  /** Start the worker and the scheduler (tests of the API alone may not want them). @default true */
  readonly run?: boolean;
  readonly onAttempt?: (report: AttemptReport) => void;
  /** True while the app is paused for verification (spec 3.3): the worker and cron hold off. */
  readonly paused?: () => Promise<boolean> | boolean;
}

/** The running jobs side of a broker. */
export interface BrokerJobs {
  readonly service: JobService;
  readonly worker: JobWorker;
  readonly scheduler: CronScheduler;
  /** Stops the scheduler, then the worker (waiting for running attempts). */
  stop(): Promise<void>;
}

/**
 * Applies the declarations (dead-lettering jobs of removed queues) and starts one worker and the
 * cron scheduler for a broker. The job tables are part of the platform schema. `files` pins the
 * delegated read grants of enqueues.
 */
export async function startBrokerJobs(
  db: Database,
  files: FileService,
  invoker: FunctionInvoker,
  options: BrokerJobsOptions,
  onError: (error: unknown) => void,
): Promise<BrokerJobs> {
  const service = new JobService(db, files, {
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await adoptLocalRows(db, service.scope);
  await service.configure({ queues: options.queues ?? [], cron: options.cron ?? [] });
  const worker = new JobWorker({
    jobs: service,
    invoker,
    onError,
    ...(options.leaseSeconds === undefined
      ? {}
      : {
          leaseSeconds: options.leaseSeconds,
          recoverEveryMs: Math.min(2000, options.leaseSeconds * 500),
        }),
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.paused ? { paused: options.paused } : {}),
  });
  const scheduler = new CronScheduler({
    jobs: service,
    onError,
    ...(options.paused ? { paused: options.paused } : {}),
  });
  if (options.run ?? true) {
    worker.start();
    scheduler.start();
  }
  return {
    service,
    worker,
    scheduler,
    stop: async () => {
      await scheduler.stop();
      await worker.stop();
    },
  };
}
