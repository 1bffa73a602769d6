import { describe, expect, it } from 'vitest';
import { limits } from '../../src/limits.ts';
import { cronScheduleProblem, isTimeZone } from '../../src/manifest/index.ts';
import { BASE, expectOne, run } from './helpers.ts';

const queue = (lines: string) => `${BASE}queues:\n  - name: jobs\n${lines}`;
const cron = (lines: string) => `${BASE}cron:\n  - name: nightly\n${lines}`;

describe('queues[]', () => {
  it('accepts a system consumer with settings at their maxima', async () => {
    const q = limits.queues;
    const { errors } = await run(
      queue(
        `    function: worker\n    concurrency: ${q.concurrency.max}\n    maxAttempts: ${q.maxAttempts.max}\n    retryDelaySeconds: ${q.retryDelaySeconds.max}\n    timeoutSeconds: ${q.timeoutSeconds.max}\n`,
      ),
    );
    expect(errors).toEqual([]);
  });

  it('rejects a consumer that is not a system Function', async () => {
    const d = await expectOne(
      queue('    function: 👉api\n'),
      'QUEUE_CONSUMER_NOT_SYSTEM',
      'queues[0].function',
    );
    expect(d.message).toContain('access: system');
  });

  it('rejects an undeclared consumer, with a suggestion', async () => {
    const d = await expectOne(
      queue('    function: 👉wroker\n'),
      'FUNCTION_NOT_DECLARED',
      'queues[0].function',
    );
    expect(d.message).toContain('Did you mean "worker"?');
  });

  it('rejects a duplicate queue name', async () => {
    await expectOne(
      queue('    function: worker\n  - name: 👉jobs\n    function: worker\n'),
      'QUEUE_NAME_DUPLICATE',
      'queues[1].name',
    );
  });

  it('rejects an invalid queue name', async () => {
    await expectOne(
      `${BASE}queues:\n  - name: 👉Jobs\n    function: worker\n`,
      'QUEUE_NAME_INVALID',
      'queues[0].name',
    );
  });

  it.each([
    ['concurrency', '0', 'VALUE_TOO_SMALL'],
    ['concurrency', '65', 'VALUE_TOO_LARGE'],
    ['maxAttempts', '1.5', 'INVALID_TYPE'],
    ['maxAttempts', '26', 'VALUE_TOO_LARGE'],
    ['retryDelaySeconds', '-1', 'VALUE_TOO_SMALL'],
    ['retryDelaySeconds', '86401', 'VALUE_TOO_LARGE'],
    ['timeoutSeconds', "'60'", 'INVALID_TYPE'],
    ['timeoutSeconds', '901', 'VALUE_TOO_LARGE'],
    ['retryBackoff', 'yes please', 'INVALID_TYPE'],
  ] as const)('rejects %s: %s', async (field, value, code) => {
    await expectOne(
      queue(`    function: worker\n    ${field}: 👉${value}\n`),
      code,
      `queues[0].${field}`,
    );
  });
});

describe('cron[]', () => {
  it('accepts a five-field schedule with names, ranges and steps', async () => {
    const { errors } = await run(
      cron(
        "    schedule: '*/5 9-17 * JAN-MAR MON-FRI'\n    function: worker\n    timezone: Asia/Tokyo\n",
      ),
    );
    expect(errors).toEqual([]);
  });

  it.each([
    ['0 0 * * * *', 'seconds'],
    ['@daily', 'nicknames'],
    ['0 0 * *', '4 fields'],
    ['61 * * * *', 'minute'],
    ['0 0 ? * *', '"?"'],
  ])('rejects the schedule %s', async (schedule, hint) => {
    const d = await expectOne(
      cron(`    schedule: 👉'${schedule}'\n    function: worker\n`),
      'CRON_SCHEDULE_INVALID',
      'cron[0].schedule',
    );
    expect(d.message).toContain(hint);
  });

  it('rejects an invalid IANA timezone, with a suggestion', async () => {
    const d = await expectOne(
      cron("    schedule: '0 0 * * *'\n    function: worker\n    timezone: 👉europe/berlin\n"),
      'TIMEZONE_INVALID',
      'cron[0].timezone',
    );
    expect(d.message).toContain('Did you mean "Europe/Berlin"?');
  });

  it('rejects a non-system cron Function', async () => {
    await expectOne(
      cron("    schedule: '0 0 * * *'\n    function: 👉site\n"),
      'CRON_FUNCTION_NOT_SYSTEM',
      'cron[0].function',
    );
  });

  it('rejects an undeclared cron Function', async () => {
    await expectOne(
      cron("    schedule: '0 0 * * *'\n    function: 👉nope\n"),
      'FUNCTION_NOT_DECLARED',
      'cron[0].function',
    );
  });

  it('rejects a duplicate cron name', async () => {
    await expectOne(
      cron(
        "    schedule: '0 0 * * *'\n    function: worker\n  - name: 👉nightly\n    schedule: '0 1 * * *'\n    function: worker\n",
      ),
      'CRON_NAME_DUPLICATE',
      'cron[1].name',
    );
  });

  it('rejects an invalid cron name', async () => {
    await expectOne(
      `${BASE}cron:\n  - name: 👉'nightly run'\n    schedule: '0 0 * * *'\n    function: worker\n`,
      'CRON_NAME_INVALID',
      'cron[0].name',
    );
  });

  it('knows time zones exactly', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('+01:00')).toBe(false);
    expect(cronScheduleProblem('0 12 * * SUN')).toBeUndefined();
  });
});
