// The test kit (@platform/server/testing) and the broker answer notifications.send alike: both
// encode the notification with the one `encodeNotificationPayload` of @platform/schema/contract
// (so the same notifications are refused with the same code), count each addressed user once and
// every device of theirs, and deliver nothing to a user with no device.
import { jsonByteLength, limits } from '@platform/schema';
import { createTestContext } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor } from '../helpers/broker.ts';

const ADA = '1a2b3c4d-1111-4aaa-8bbb-000000000001';
const BEN = '1a2b3c4d-2222-4aaa-8bbb-000000000002';
const CY = '1a2b3c4d-3333-4aaa-8bbb-000000000003';

let env: Awaited<ReturnType<typeof brokerFor>>;
/** What the broker answered before anyone subscribed. */
let beforeAnyDevice: { delivered: number };
beforeAll(async () => {
  env = await brokerFor({});
  beforeAnyDevice = await env.broker.push.send({ to: [ADA, BEN, CY], title: 'Hi' });
  // Ada has a phone and a laptop, Ben one device, Cy none.
  for (const user of [ADA, ADA, BEN]) await env.broker.push.subscribeLocal(user);
});
const devices = { [ADA]: 2, [BEN]: 1 };
afterAll(() => env.cleanup());

type Outcome = { delivered: number } | { code: string };

async function outcome(run: () => Promise<{ delivered: number }>): Promise<Outcome> {
  try {
    return await run();
  } catch (error) {
    return { code: (error as { code: string }).code };
  }
}

// A notification whose JSON is exactly the limit: 1,000 three-byte characters of body, and a url
// filling the rest (`,"url":""` is 9 bytes).
const heavy = { title: 't', body: '€'.repeat(1000) };
const atLimit = {
  ...heavy,
  url: `/${'u'.repeat(limits.push.payloadMaxBytes - jsonByteLength(heavy) - 9 - 1)}`,
};
const overLimit = { ...atLimit, url: `${atLimit.url}u` };

type Notification = { to: string | string[]; title: string; body?: string; url?: string };
const tooLarge = { code: 'NOTIFICATION_TOO_LARGE' };
const cases: Array<[string, Notification, Outcome]> = [
  ['a user with two devices', { to: ADA, title: 'Hi' }, { delivered: 2 }],
  ['a user with one device', { to: BEN, title: 'Hi' }, { delivered: 1 }],
  ['subscribed and not', { to: [ADA, BEN, CY], title: 'Hi' }, { delivered: 3 }],
  ['nobody subscribed', { to: CY, title: 'Hi' }, { delivered: 0 }],
  ['a user named twice', { to: [ADA, ADA], title: 'Hi' }, { delivered: 2 }],
  ['exactly the size limit', { to: ADA, ...atLimit }, { delivered: 2 }],
  ['one byte over the limit', { to: ADA, ...overLimit }, tooLarge],
  ['four-byte characters', { to: ADA, title: '🔔', body: '🔔'.repeat(1000) }, tooLarge],
];

describe('notifications.send: test kit and broker agree', () => {
  it.each(cases)('%s', async (_, notification, expected) => {
    const kit = createTestContext({ pushDevices: devices });
    const [fromKit, fromBroker] = [
      await outcome(() => kit.notifications.send(notification)),
      await outcome(() => env.broker.push.send(notification)),
    ];
    expect(fromBroker).toEqual(expected);
    expect(fromKit).toEqual(fromBroker);
  });

  it('delivers nothing where no device is subscribed: an unseeded kit, a fresh broker', async () => {
    const kit = createTestContext();
    const notification = { to: [ADA, BEN, CY], title: 'Hi' };
    expect(beforeAnyDevice).toEqual({ delivered: 0 });
    expect(await kit.notifications.send(notification)).toEqual(beforeAnyDevice);
  });
});
