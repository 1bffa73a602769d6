import { isJsonObject, PlatformError } from '@platform/errors';
import { jsonByteLength, limits } from '@platform/schema';
import type { RuntimeClient } from './transport.ts';
import type { EnqueueOptions, Job, JobsClient } from './types.ts';

function fail(
  code: 'INVALID_INPUT' | 'LIMIT_EXCEEDED',
  message: string,
  details = {},
): PlatformError {
  return new PlatformError({ code, message, details });
}

/** Checks `jobs.enqueue` arguments (spec 2.7, section 8) and returns the request body. */
export function checkEnqueue(
  client: RuntimeClient,
  queue: unknown,
  payload: unknown,
  options: unknown,
) {
  if (typeof queue !== 'string' || queue === '')
    throw fail('INVALID_INPUT', 'queue must be a non-empty string.');
  if (!isJsonObject(payload)) throw fail('INVALID_INPUT', 'The job payload must be a JSON object.');
  const size = jsonByteLength(payload);
  if (size > limits.jobs.payloadMaxBytes) {
    throw fail(
      'LIMIT_EXCEEDED',
      `The job payload is ${size} bytes of JSON; at most ${limits.jobs.payloadMaxBytes} are allowed.`,
      {
        size,
        limit: limits.jobs.payloadMaxBytes,
      },
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw fail('INVALID_INPUT', 'jobs.enqueue needs options with an idempotencyKey.');
  }
  const o = options as Partial<EnqueueOptions>;
  if (typeof o.idempotencyKey !== 'string' || o.idempotencyKey === '') {
    throw fail('INVALID_INPUT', 'idempotencyKey is required and must be a non-empty string.', {
      field: 'idempotencyKey',
    });
  }
  if (o.delaySeconds !== undefined) {
    if (
      typeof o.delaySeconds !== 'number' ||
      !Number.isInteger(o.delaySeconds) ||
      o.delaySeconds < 0
    ) {
      throw fail('INVALID_INPUT', 'delaySeconds must be a non-negative integer.', {
        field: 'delaySeconds',
      });
    }
    if (o.delaySeconds > limits.jobs.delayMaxSeconds) {
      throw fail(
        'LIMIT_EXCEEDED',
        `delaySeconds may be at most ${limits.jobs.delayMaxSeconds} (seven days).`,
        {
          field: 'delaySeconds',
          limit: limits.jobs.delayMaxSeconds,
        },
      );
    }
  }
  if (o.timeoutMs !== undefined) {
    if (!Number.isSafeInteger(o.timeoutMs) || o.timeoutMs <= 0) {
      throw fail('INVALID_INPUT', 'timeoutMs must be a positive whole number of milliseconds.', {
        field: 'timeoutMs',
      });
    }
    // A timer fires at once past this (Node), so the request would fail before it was sent.
    if (o.timeoutMs > limits.jobs.enqueueTimeoutMaxMs) {
      throw fail(
        'LIMIT_EXCEEDED',
        `timeoutMs may be at most ${limits.jobs.enqueueTimeoutMaxMs} (about 24.8 days).`,
        { field: 'timeoutMs', limit: limits.jobs.enqueueTimeoutMaxMs },
      );
    }
  }
  let files: { read: string[] } | undefined;
  if (o.files !== undefined) {
    client.requireFeature('enqueueFiles', 'jobs.enqueue files');
    const read: unknown = o.files?.read;
    if (!Array.isArray(read) || read.some((id) => typeof id !== 'string' || id === '')) {
      throw fail('INVALID_INPUT', 'files.read must be an array of file ids.', {
        field: 'files.read',
      });
    }
    const { minFiles, maxFiles } = limits.fileGrant;
    if (read.length < minFiles || read.length > maxFiles) {
      throw fail('LIMIT_EXCEEDED', `files.read must name ${minFiles} to ${maxFiles} files.`, {
        field: 'files.read',
        min: minFiles,
        max: maxFiles,
      });
    }
    files = { read: [...(read as string[])] };
  }
  return {
    body: {
      payload,
      idempotencyKey: o.idempotencyKey,
      ...(o.delaySeconds === undefined ? {} : { delaySeconds: o.delaySeconds }),
      ...(files === undefined ? {} : { files }),
    },
    timeoutMs: o.timeoutMs,
  };
}

/** `ctx.jobs`. */
export function createJobs(client: RuntimeClient): JobsClient {
  return {
    async enqueue(queue, payload, options) {
      const { body, timeoutMs } = checkEnqueue(client, queue, payload, options);
      const { job } = await client.call('jobsEnqueue', { queue }, body, timeoutMs);
      return job as Job;
    },
    async get(jobId) {
      if (typeof jobId !== 'string' || jobId === '')
        throw new TypeError('jobId must be a non-empty string');
      const { job } = await client.call('jobsGet', {}, { id: jobId });
      return job as Job;
    },
  };
}
