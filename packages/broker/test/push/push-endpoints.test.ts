// Where push messages may go: under `platform dev` only to the broker's own local push service
// (or push services it was told to accept), never to another port or path of this machine,
// whatever spelling of the address; a push service's redirect is a failed send, never followed.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushService } from '../../src/push/push-service.ts';
import { endpointProblem } from '../../src/push/subscription-check.ts';
import { brokerFor } from '../helpers/broker.ts';
import { testDevice } from './push-helpers.ts';

const ALICE = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';

let env: Awaited<ReturnType<typeof brokerFor>>;
beforeAll(async () => {
  env = await brokerFor({}, { pushServiceHosts: ['push.example.com'] });
});
afterAll(() => env.cleanup());

const subscribe = (endpoint: string) =>
  fetch(`${env.broker.server.url}/_platform/api/push/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': ALICE },
    body: JSON.stringify(testDevice(endpoint).subscription),
  });

/** A server on loopback that records every request and answers each with `answer`. */
async function listener(
  answer: (request: IncomingMessage) => { status: number; headers?: Record<string, string> },
) {
  const received: { method: string; url: string }[] = [];
  const server: Server = createServer((request, response) => {
    received.push({ method: request.method ?? '', url: request.url ?? '' });
    request.resume();
    request.on('end', () => {
      const { status, headers } = answer(request);
      response.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('under platform dev, a subscription endpoint', () => {
  it('is refused on any other port or path of this machine, in every spelling of loopback', async () => {
    const port = env.broker.server.port;
    const refused = [
      `http://127.0.0.1:${port}/v1/apps/local/invoke/anything`,
      `http://2130706433:${port}/v1/apps/local/invoke/anything`,
      `http://0x7f.0.0.1:${port}/v1/apps/local/invoke/anything`,
      `http://127.1:${port}/v1/apps/local/invoke/anything`,
      'http://0177.0.0.1:9/_platform/push-service/abc',
      `http://[::ffff:127.0.0.1]:${port}/v1/apps/local/invoke/anything`,
      `http://localhost:${port}/v1/apps/local/jobs`,
      `http://127.0.0.1:9/_platform/push-service/abc`,
      `http://[::1]:22/`,
      'https://127.0.0.1/push',
      'https://2130706433/push',
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://evilpush.example.com/send/abc',
    ];
    for (const endpoint of refused) {
      const response = await subscribe(endpoint);
      expect(response.status, endpoint).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; details: unknown } };
      expect(error, endpoint).toMatchObject({
        code: 'PUSH_SUBSCRIPTION_INVALID',
        details: { field: 'endpoint' },
      });
    }
    expect(await env.broker.push.subscriptions.ofUsers([ALICE])).toEqual([]);
  });

  it("is accepted on the local push service's own endpoints and on an allowed push service", async () => {
    const port = env.broker.server.port;
    for (const endpoint of [
      `http://127.0.0.1:${port}/_platform/push-service/device_1`,
      `http://2130706433:${port}/_platform/push-service/device_2`,
      'https://push.example.com/send/abc',
      'https://eu.push.example.com/send/abc',
    ]) {
      expect((await subscribe(endpoint)).status, endpoint).toBe(200);
    }
    const stored = await env.broker.push.subscriptions.ofUsers([ALICE]);
    // Stored as WHATWG parsing writes them: the numeric host becomes 127.0.0.1.
    expect(stored.map((d) => d.endpoint)).toContain(
      `http://127.0.0.1:${port}/_platform/push-service/device_2`,
    );
    for (const device of stored) await env.broker.push.subscriptions.expire(device.endpoint);
  });

  it('is not contacted when stored earlier but refused now, so its port stays unprobed', async () => {
    const target = await listener(() => ({ status: 201 }));
    try {
      // As an earlier version stored it, before endpoints were checked this way.
      await env.broker.push.subscriptions.save(ALICE, testDevice(`${target.url}/x`).subscription);
      expect(await env.broker.push.send({ to: ALICE, title: 'Hi' })).toEqual({ delivered: 0 });
      expect(target.received).toEqual([]);
    } finally {
      await env.broker.push.subscriptions.expire(`${target.url}/x`);
      await target.close();
    }
  });
});

describe('a broker that uses the browsers’ push services', () => {
  it('accepts https push services by DNS name only, never an address or a local name', () => {
    const rules = {};
    for (const endpoint of [
      'https://127.0.0.1/x',
      'https://2130706433/x',
      'https://0x7f.0.0.1/x',
      'https://[::1]/x',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest',
      'https://localhost/x',
      'https://app.localhost/x',
      'http://push.example.com/x',
    ]) {
      expect(endpointProblem(endpoint, rules), endpoint).toBeDefined();
    }
    expect(endpointProblem('https://fcm.googleapis.com/fcm/send/abc', rules)).toBeUndefined();
  });
});

describe('a push service that redirects', () => {
  it.each([307, 302])('answers %i: a failed send, the redirect never followed', async (status) => {
    const elsewhere = await listener(() => ({ status: 201 }));
    const service = await listener(() => ({
      status,
      headers: { location: `${elsewhere.url}/stolen` },
    }));
    const push = await PushService.create(env.broker.db, {
      stateDir: join(env.appDir, '.platform'),
      brokerUrl: env.broker.server.url,
      pushServiceHosts: [service.url],
    });
    const endpoint = `${service.url}/send/${status}`;
    try {
      await push.subscribe(ALICE, testDevice(endpoint).subscription);
      expect(await push.send({ to: ALICE, title: 'Hi' })).toEqual({ delivered: 0 });
      expect(service.received).toEqual([{ method: 'POST', url: `/send/${status}` }]);
      expect(elsewhere.received).toEqual([]);
    } finally {
      await push.subscriptions.expire(endpoint);
      await service.close();
      await elsewhere.close();
    }
  });
});
