import { createECDH, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ece } from '../../src/push/ece.ts';

/** A device made in the test: a browser's subscription keys, with the private half kept. */
export function testDevice(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    subscription: {
      endpoint,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    },
    /** Decrypts a push message body (RFC 8291) as this device. */
    decrypt: (body: Buffer) =>
      ece.decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth }).toString(),
  };
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A push service on loopback that answers each POST with the next status of `statuses` (the
 * last one repeats) and records what it got.
 */
export async function scriptedPushService(statuses: number[]): Promise<{
  url: string;
  received: { headers: IncomingMessage['headers']; body: Buffer }[];
  close: () => Promise<void>;
}> {
  const received: { headers: IncomingMessage['headers']; body: Buffer }[] = [];
  const server: Server = createServer(async (request, response) => {
    received.push({ headers: request.headers, body: await bodyOf(request) });
    const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 201;
    response.writeHead(status, status === 429 ? { 'retry-after': '0' } : {}).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/push/device-1`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
