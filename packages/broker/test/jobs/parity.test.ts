// The test kit (@platform/server/testing) and the broker answer jobs.enqueue alike: the job
// record carries the policy pinned from the queue's declaration (its `maxAttempts`, or the
// manifest default), the same idempotency answers and the same refusal of an undeclared queue.
import { parseManifest } from '@platform/schema/manifest';
import { createTestContext } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

const parsed = parseManifest(`schemaVersion: 3
runtime: { sdk: { version: 2.6.0 } }
functions:
  - { name: consume, entrypoint: functions/consume.ts, access: system }
queues:
  - { name: twice, function: consume, maxAttempts: 2 }
  - { name: plain, function: consume }
`);
if (!parsed.manifest) throw new Error(JSON.stringify(parsed.errors));
const { queues } = parsed.manifest;

let env: Awaited<ReturnType<typeof brokerFor>>;
beforeAll(async () => {
  // A poll far beyond the test: the jobs stay queued, as the test kit's do.
  env = await brokerFor({}, { jobs: { queues, cron: [], pollMs: 600_000 } });
});
afterAll(() => env?.cleanup());

type Outcome = { maxAttempts: number; state: string; created: boolean } | { code: string };

async function outcome(
  run: () => Promise<{ job: { maxAttempts: number; state: string }; created: boolean }>,
): Promise<Outcome> {
  try {
    const { job, created } = await run();
    return { maxAttempts: job.maxAttempts, state: job.state, created };
  } catch (error) {
    return { code: (error as { code: string }).code };
  }
}

const cases: Array<[string, string, string, Outcome]> = [
  [
    'a queue declaring maxAttempts',
    'twice',
    'k1',
    { maxAttempts: 2, state: 'queued', created: true },
  ],
  ['a queue with the default', 'plain', 'k1', { maxAttempts: 5, state: 'queued', created: true }],
  ['the same key again', 'twice', 'k1', { maxAttempts: 2, state: 'queued', created: false }],
  ['an undeclared queue', 'nope', 'k1', { code: 'QUEUE_NOT_DECLARED' }],
];

describe('jobs.enqueue: test kit and broker agree', () => {
  const kit = createTestContext({ queues });
  it.each(cases)('%s', async (_, queue, idempotencyKey, expected) => {
    const payload = { n: 1 };
    const fromKit = await outcome(async () => {
      const before = kit.enqueuedJobs.length;
      const job = await kit.jobs.enqueue(queue, payload, { idempotencyKey });
      return { job, created: kit.enqueuedJobs.length > before };
    });
    const fromBroker = await outcome(() =>
      env.broker.jobs.service.enqueue(queue, { payload, idempotencyKey }),
    );
    expect(fromBroker).toEqual(expected);
    expect(fromKit).toEqual(fromBroker);
  });
});
