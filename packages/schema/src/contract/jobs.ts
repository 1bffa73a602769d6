import { z } from 'zod';
import { contextRoutes } from '../routes.ts';
import { jsonObject, timestamp } from './common.ts';
import { defineRoute } from './define.ts';

/** Job states (spec 3.1). */
export const jobStates = ['queued', 'running', 'retry_wait', 'succeeded', 'dead_lettered'] as const;

/**
 * A job record as `jobs.enqueue` and `jobs.get` return it. Never carries the payload, the
 * idempotency key or the enqueuing user.
 */
export const jobSchema = z.strictObject({
  id: z.string().min(1),
  queue: z.string().min(1),
  state: z.enum(jobStates),
  /** Attempts started so far; the first delivery is attempt 1. */
  attempt: z.int().min(0),
  maxAttempts: z.int().min(1),
  createdAt: timestamp,
  updatedAt: timestamp,
  /** When the next attempt may start (`null` once terminal). */
  runAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  /** The latest error, bounded to `limits.jobs.errorMaxLength` characters. */
  lastError: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
});

/** `jobs.enqueue(queue, payload, options)`. `timeoutMs` stays on the client (it bounds the request). */
export const jobsEnqueue = defineRoute('jobsEnqueue', contextRoutes.jobsEnqueue, {
  summary: 'Enqueue a job; the same idempotency key and payload return the original job.',
  request: z.strictObject({
    payload: jsonObject,
    idempotencyKey: z.string().min(1).max(255),
    delaySeconds: z.int().min(0).optional(),
    /** SDK 2.4.0: delegated read grant of managed files by id. */
    files: z.strictObject({ read: z.array(z.string().min(1)) }).optional(),
  }),
  response: z.strictObject({ job: jobSchema, created: z.boolean() }),
  errors: [
    'QUEUE_NOT_DECLARED',
    'IDEMPOTENCY_KEY_REUSED',
    'ACTIVE_JOBS_LIMIT',
    'LIMIT_EXCEEDED',
    'FILE_NOT_FOUND',
  ],
});

/** `jobs.get(jobId)`. */
export const jobsGet = defineRoute('jobsGet', contextRoutes.jobsGet, {
  summary: 'Read the status of a job of this app.',
  request: z.strictObject({ id: z.string().min(1) }),
  response: z.strictObject({ job: jobSchema }),
  errors: ['JOB_NOT_FOUND'],
});
