import type { QueueDeclaration } from '@platform/schema/manifest';
import { FileService } from '../../src/files/file-service.ts';
import type {
  CallRequest,
  DeployedFunction,
  FunctionInvoker,
} from '../../src/functions/invoker.ts';
import { JobService } from '../../src/jobs/job-service.ts';
import { JobWorker, type JobWorkerOptions } from '../../src/jobs/job-worker.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { appWithDatabase } from '../helpers/db.ts';

/** A consumer: resolves with its result or throws like the Function host would. */
export type Consumer = (request: CallRequest) => Promise<unknown> | unknown;

/** An invoker whose Functions are plain callbacks, recording every call. */
export class FakeInvoker implements Pick<FunctionInvoker, 'get' | 'call'> {
  readonly calls: { name: string; request: CallRequest }[] = [];
  readonly consumers = new Map<string, Consumer>();

  get(name: string): DeployedFunction | undefined {
    return this.consumers.has(name) ? ({ name, access: 'system' } as DeployedFunction) : undefined;
  }

  async call(name: string, request: CallRequest): Promise<Response> {
    this.calls.push({ name, request });
    const consumer = this.consumers.get(name);
    if (!consumer) throw new Error(`no consumer ${name}`);
    const result = await consumer(request);
    return new Response(JSON.stringify({ result: result ?? null }));
  }
}

/** A queue declaration with every field filled in. */
export const queue = (
  name: string,
  fn: string,
  extra: Partial<QueueDeclaration> = {},
): QueueDeclaration => ({
  name,
  function: fn,
  concurrency: 1,
  maxAttempts: 3,
  retryDelaySeconds: 10,
  retryBackoff: false,
  timeoutSeconds: 60,
  ...extra,
});

/** A PGlite database with the platform schema, a manual clock, a fake invoker. */
export async function engine(start = '2025-01-15T12:00:00.000Z') {
  const opened = await appWithDatabase({}, { inMemory: true });
  const clock = new ManualClock(start);
  const files = new FileService(opened.db, `${opened.appDir}/.platform/files`, { clock });
  const jobs = new JobService(opened.db, files, { clock });
  const invoker = new FakeInvoker();
  const workers: JobWorker[] = [];
  const worker = (options: Partial<JobWorkerOptions> = {}) => {
    const w = new JobWorker({
      jobs,
      invoker,
      pollMs: 20,
      recoverEveryMs: 0,
      stopGraceMs: 2000,
      ...options,
    });
    workers.push(w);
    w.start();
    return w;
  };
  return {
    db: opened.db,
    clock,
    files,
    jobs,
    invoker,
    worker,
    cleanup: async () => {
      for (const w of workers) await w.stop();
      await opened.cleanup();
    },
  };
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`waitFor timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 15));
  }
}
