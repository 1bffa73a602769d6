import type { AuthService } from '../auth/auth-service.ts';
import { heldOrPaused, type InspectionHold } from '../backups/inspection-hold.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import type { FileService } from '../files/file-service.ts';
import { printable, printableError } from '../logs/printable.ts';
import { feedSection } from './dashboard/feed-section.ts';
import { cronSection, jobsSection } from './dashboard/jobs-section.ts';
import { mountJobSummaryRoutes } from './dashboard/summary-routes.ts';
import { mountFeedRoutes } from './feed/feed-routes.ts';
import { localScope } from './job-service.ts';
import type { AttemptReport } from './job-worker.ts';
import { mountJobsRoutes } from './jobs-routes.ts';
import { type BrokerJobs, type BrokerJobsOptions, startBrokerJobs } from './start-jobs.ts';

/** One finished job or cron attempt as `platform dev` prints it. */
export function attemptLine(report: AttemptReport): string {
  const ms = Math.round(report.endedAt - report.startedAt);
  const error = report.errorCode ? ` ${report.errorCode}` : '';
  return printable(
    `${report.kind} ${report.queue} ${report.id} ${report.outcome}${error} (attempt ${report.attempt}, ${ms} ms)`,
  );
}

/** Queues, the job worker and the cron scheduler (docs/jobs.md), and the jobs API. */
export function jobsFeature(
  options: BrokerJobsOptions | undefined,
): BrokerFeature<
  'jobs',
  { files: FileService; auth: AuthService; hold: InspectionHold },
  BrokerJobs
> {
  return {
    name: 'jobs',
    start: async (base, { files, auth, hold }) => {
      const jobs = await startBrokerJobs(
        base.db,
        files,
        base.invoker,
        {
          // Spec 3.3: while the owner is paused for verification, the worker and cron hold off;
          // so do they in a copy restored from a backup, held for inspection.
          paused: heldOrPaused(hold, () => auth.appPaused()),
          scope: { ...localScope, appId: base.appId },
          ...options,
          onAttempt: (report) => {
            base.activity(attemptLine(report));
            options?.onAttempt?.(report);
          },
        },
        (error) => base.print(`broker jobs error: ${printableError(error)}`),
      );
      base.onClose(() => jobs.stop());
      return jobs;
    },
    dashboard: [jobsSection, feedSection, cronSection],
    erasure: {
      // Work a deleted person asked for that has not started stops with them; finished jobs
      // forget who asked. A running attempt ends within its lease, refused any file it reads
      // under the person's grant (the account is gone).
      appPerson: async (tx, { accountId }) => {
        await tx.query(
          "DELETE FROM platform.jobs WHERE grant_user_id = $1 AND state IN ('queued', 'retry_wait')",
          [accountId],
        );
        await tx.query(
          "UPDATE platform.jobs SET grant_user_id = NULL WHERE grant_user_id = $1 AND state IN ('succeeded', 'dead_lettered')",
          [accountId],
        );
      },
    },
    mount: {
      routes: (app, jobs) => {
        mountJobSummaryRoutes(app, { jobs: jobs.service }); // before /jobs/:jobId
        mountJobsRoutes(app, { jobs: jobs.service });
        mountFeedRoutes(app, { jobs: jobs.service });
      },
    },
  };
}
