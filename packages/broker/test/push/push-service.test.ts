import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { deliverPush } from '../../src/push/push-delivery.ts';
import { PushService } from '../../src/push/push-service.ts';
import { type VapidKeys, vapidKeysPath } from '../../src/push/vapid-keys.ts';
import { VapidSigner } from '../../src/push/vapid-signer.ts';
import { brokerFor } from '../helpers/broker.ts';
import { scriptedPushService, testDevice } from './push-helpers.ts';

const ALICE = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';
const BOB = '0b5e1c9a-7d2f-4e8a-9c3b-1a2b3c4d5e6f';
const NOBODY = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

let env: Awaited<ReturnType<typeof brokerFor>>;
beforeAll(async () => {
  // A browser's push service as `platform dev` may be told to accept one.
  env = await brokerFor({}, { pushServiceHosts: ['push.example.com'] });
});
afterAll(() => env.cleanup());

const url = (path: string) => `${env.broker.server.url}${path}`;
const post = (path: string, body: unknown, user?: string) =>
  fetch(url(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { 'x-test-user': user } : {}) },
    body: JSON.stringify(body),
  });
const subscribe = (body: unknown, user = ALICE) =>
  post('/_platform/api/push/subscriptions', body, user);
/** The app's push service accepting, besides the local one, exactly `origins`. */
const pushTo = (...origins: string[]) =>
  PushService.create(env.broker.db, {
    stateDir: join(env.appDir, '.platform'),
    brokerUrl: env.broker.server.url,
    pushServiceHosts: origins.map((url) => new URL(url).origin),
  });
const rowCount = async () =>
  Number(
    (
      await env.broker.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM platform.push_subscriptions',
      )
    ).rows[0]!.n,
  );
const deliveries = async () =>
  (await (await fetch(url(`/v1/apps/${env.broker.appId}/push/deliveries`))).json()) as {
    deliveries: { userId: string; payload: unknown }[];
  };

describe('VAPID keys', () => {
  it('are made on the first start, kept owner-only in .platform/push, and only the public half is served', async () => {
    const path = vapidKeysPath(join(env.appDir, '.platform'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(env.appDir, '.platform', 'push'))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(path, 'utf8')) as {
      publicKey: string;
      privateKey: string;
    };
    const response = await fetch(url('/_platform/api/push/key'));
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ publicKey: stored.publicKey, pushService: 'local' });
    expect(text).not.toContain(stored.privateKey);
    expect(env.broker.push.publicKey).toBe(stored.publicKey);
  });
});

describe('subscriptions', () => {
  it('refuses malformed subscriptions with PUSH_SUBSCRIPTION_INVALID and stores nothing', async () => {
    const good = testDevice('https://push.example.com/send/abc').subscription;
    const before = await rowCount();
    const bad = [
      { ...good, endpoint: 'ftp://push.example.com/x' },
      { ...good, endpoint: 'http://push.example.com/x' },
      { ...good, endpoint: 'not a url' },
      { ...good, keys: { ...good.keys, p256dh: Buffer.alloc(65, 4).toString('base64url') } },
      { ...good, keys: { ...good.keys, p256dh: 'abc' } },
      { ...good, keys: { ...good.keys, auth: Buffer.alloc(8).toString('base64url') } },
      { ...good, keys: { ...good.keys, auth: 'not base64!' } },
      { endpoint: good.endpoint },
    ];
    for (const body of bad) {
      const response = await subscribe(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('PUSH_SUBSCRIPTION_INVALID');
    }
    expect(await rowCount()).toBe(before);
  });

  it('move to whoever subscribes the same device last, and keep at most 20 per user', async () => {
    const DAN = '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a';
    const EVE = '8e9f0a1b-2c3d-4e5f-8a6b-7c8d9e0f1a2b';
    const shared = testDevice('https://push.example.com/send/shared').subscription;
    expect((await subscribe(shared, DAN)).status).toBe(200);
    expect((await subscribe(shared, EVE)).status).toBe(200);
    expect(await env.broker.push.subscriptions.ofUsers([DAN])).toEqual([]);
    expect((await env.broker.push.subscriptions.ofUsers([EVE])).map((d) => d.endpoint)).toEqual([
      shared.endpoint,
    ]);
    for (let i = 0; i < 21; i++) {
      await subscribe(testDevice(`https://push.example.com/send/eve-${i}`).subscription, EVE);
    }
    const kept = await env.broker.push.subscriptions.ofUsers([EVE]);
    expect(kept).toHaveLength(20);
    expect(kept.map((d) => d.endpoint)).not.toContain(shared.endpoint);
    for (const device of kept) await env.broker.push.subscriptions.expire(device.endpoint);
  });

  it('belong to a signed-in user', async () => {
    const response = await post('/_platform/api/push/subscriptions', { local: true });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'AUTH_REQUIRED',
    );
  });
});

describe('notifications.send through the local push service', () => {
  it('reaches every device of the addressed users, decrypted after VAPID verification', async () => {
    const first = (await (await subscribe({ local: true })).json()) as { endpoint: string };
    expect(first.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_platform\/push-service\//);
    await subscribe({ local: true });
    await subscribe({ local: true }, BOB);
    const sent = await env.broker.push.send({
      to: [ALICE, BOB, NOBODY],
      title: 'Milk',
      body: 'Buy milk',
      url: '/todos/1',
      tag: 'todo-1',
    });
    expect(sent).toEqual({ delivered: 3 });
    const { deliveries: got } = await deliveries();
    expect(got.slice(0, 3).map((d) => d.payload)).toEqual(
      Array(3).fill({ title: 'Milk', body: 'Buy milk', url: '/todos/1', tag: 'todo-1' }),
    );
    expect(
      got
        .slice(0, 3)
        .map((d) => d.userId)
        .sort(),
    ).toEqual([ALICE, ALICE, BOB].sort());
  });

  it('answers zero reached, not an error, for a user without a subscription', async () => {
    expect(await env.broker.push.send({ to: NOBODY, title: 'Hello' })).toEqual({ delivered: 0 });
  });

  it('refuses a notification over the Web Push size limit before sending anything', async () => {
    const before = (await deliveries()).deliveries.length;
    await expect(
      env.broker.push.send({ to: ALICE, title: 'Long', body: 'x'.repeat(3990) }),
    ).rejects.toMatchObject({ code: 'NOTIFICATION_TOO_LARGE', status: 413 });
    expect((await deliveries()).deliveries.length).toBe(before);
  });

  it('forgets a subscription whose push service answers 410', async () => {
    const { endpoint } = (await (await subscribe({ local: true }, NOBODY)).json()) as {
      endpoint: string;
    };
    await env.broker.push.local!.removeDevice(endpoint);
    expect(await env.broker.push.send({ to: NOBODY, title: 'Gone' })).toEqual({ delivered: 0 });
    expect(await env.broker.push.subscriptions.ofUsers([NOBODY])).toEqual([]);
  });

  it('unsubscribes a device', async () => {
    const { endpoint } = (await (await subscribe({ local: true }, NOBODY)).json()) as {
      endpoint: string;
    };
    const removed = await post('/_platform/api/push/subscriptions/remove', { endpoint }, NOBODY);
    expect(await removed.json()).toEqual({ removed: true });
    expect(await env.broker.push.send({ to: NOBODY, title: 'Gone' })).toEqual({ delivered: 0 });
  });

  it('is refused by the local push service when signed with another key', async () => {
    const device = await env.broker.push.local!.subscribe(env.broker.server.url, null);
    const other = (await import('web-push')).default.generateVAPIDKeys();
    const outcome = await deliverPush(device, new TextEncoder().encode('{}'), {
      signer: new VapidSigner(other, 'mailto:ops@example.com'),
    });
    expect(outcome).toEqual({ kind: 'rejected', status: 403 });
  });
});

describe('the local push service', () => {
  it('refuses a JWT for another audience, and a message without TTL', async () => {
    const device = await env.broker.push.local!.subscribe(env.broker.server.url, null);
    const keys = JSON.parse(
      await readFile(vapidKeysPath(join(env.appDir, '.platform')), 'utf8'),
    ) as VapidKeys;
    const { cipherText } = webpush.encrypt(device.keys.p256dh, device.keys.auth, '{}', 'aes128gcm');
    const post = (headers: Record<string, string>) =>
      fetch(device.endpoint, {
        method: 'POST',
        headers: { 'content-encoding': 'aes128gcm', ...headers },
        body: new Uint8Array(cipherText),
      });
    const signer = new VapidSigner(keys, 'mailto:ops@example.com');
    const right = await signer.authorization(new URL(device.endpoint).origin);
    const wrong = await signer.authorization('https://push.example.com');
    expect((await post({ ttl: '60', authorization: wrong })).status).toBe(401);
    expect((await post({ authorization: right })).status).toBe(400);
    expect((await post({ ttl: '60' })).status).toBe(401);
    expect((await post({ ttl: '60', authorization: right })).status).toBe(201);
  });
});

describe('notifications.send to browser push services', () => {
  const CAROL = '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f';

  it('encrypts for the device (RFC 8291) and retries a 429', async () => {
    const service = await scriptedPushService([429, 201]);
    const push = await pushTo(service.url);
    try {
      const device = testDevice(service.url);
      await push.subscribe(CAROL, device.subscription);
      expect(await push.send({ to: CAROL, title: 'Hi' })).toEqual({ delivered: 1 });
      expect(service.received).toHaveLength(2);
      const last = service.received[1]!;
      expect(last.headers['content-encoding']).toBe('aes128gcm');
      expect(last.headers.authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/);
      expect(JSON.parse(device.decrypt(last.body))).toEqual({ title: 'Hi' });
    } finally {
      await service.close();
      await env.broker.push.subscriptions.expire(service.url);
    }
  });

  it('answers the retryable PUSH_SERVICE_UNAVAILABLE when no device could be reached', async () => {
    const service = await scriptedPushService([503]);
    await service.close(); // a push service that is down: nothing listens on its port
    const busy = await scriptedPushService([503]);
    const push = await pushTo(service.url, busy.url);
    try {
      await push.subscribe(CAROL, testDevice(service.url).subscription);
      await push.subscribe(CAROL, testDevice(`${busy.url}-2`).subscription);
      await expect(push.send({ to: CAROL, title: 'Hi' })).rejects.toMatchObject({
        code: 'PUSH_SERVICE_UNAVAILABLE',
        status: 503,
        retryable: true,
      });
      // Bounded: three attempts, then the error.
      expect(busy.received).toHaveLength(3);
      expect(await env.broker.push.subscriptions.ofUsers([CAROL])).toHaveLength(2);
    } finally {
      await busy.close();
    }
  });
});

describe('a broker that uses the browsers’ push services', () => {
  it('serves pushService "browser", accepts only https endpoints and makes no local devices', async () => {
    const { PushService } = await import('../../src/push/push-service.ts');
    const push = await PushService.create(env.broker.db, {
      stateDir: join(env.appDir, '.platform'),
      brokerUrl: env.broker.server.url,
      pushService: 'browser',
    });
    expect(push.pushService).toBe('browser');
    expect(push.local).toBeUndefined();
    await expect(push.subscribeLocal(ALICE)).rejects.toMatchObject({
      code: 'PUSH_SUBSCRIPTION_INVALID',
    });
    await expect(
      push.subscribe(ALICE, testDevice('http://127.0.0.1:9/push/x').subscription),
    ).rejects.toMatchObject({ code: 'PUSH_SUBSCRIPTION_INVALID', details: { field: 'endpoint' } });
  });
});

describe('a copy restored from a backup, held for inspection', () => {
  const DAVE = '4d3c2b1a-0f9e-4d8c-8b7a-6e5d4c3b2a10';

  it('contacts no push service, even for a device subscribed since the restore', async () => {
    const service = await scriptedPushService([201]);
    const held = await PushService.create(env.broker.db, {
      stateDir: join(env.appDir, '.platform'),
      brokerUrl: env.broker.server.url,
      pushServiceHosts: [new URL(service.url).origin],
      held: async () => true,
    });
    try {
      await held.subscribe(DAVE, testDevice(service.url).subscription);
      expect(await held.send({ to: DAVE, title: 'From the copy' })).toEqual({ delivered: 0 });
      expect(service.received).toEqual([]);
      // Too large is still refused: the hold does not hide a Function's mistake.
      await expect(
        held.send({ to: DAVE, title: 'Long', body: 'x'.repeat(3990) }),
      ).rejects.toMatchObject({ code: 'NOTIFICATION_TOO_LARGE' });
    } finally {
      await service.close();
    }
  });
});
