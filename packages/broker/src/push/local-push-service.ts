import { createECDH, createPublicKey, randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { jwtVerify } from 'jose';
import type { Database } from '../db/database.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { LOCAL_PUSH_PREFIX } from '../http/paths.ts';
import { newId } from '../kernel/ids.ts';
import { ece } from './ece.ts';
import { localDeviceId } from './local-endpoints.ts';
import type { PushSubscriptionKeys } from './subscription-check.ts';

/** A notification the local push service received, verified and decrypted. */
export interface LocalDelivery {
  readonly id: string;
  readonly endpoint: string;
  readonly userId: string | null;
  /** The decrypted payload: the notification's JSON (or its text, if it was not JSON). */
  readonly payload: unknown;
  readonly ttlSeconds: number;
  readonly urgency: string | null;
  readonly topic: string | null;
  readonly receivedAt: string;
}

/** Why the local push service refused a message: the status a real push service would send. */
class Refusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

// RFC 8030 7.2: a push service must accept 4,096 bytes of encrypted payload.
const MAX_BODY = 4096;
// RFC 8292 2: a JWT that expires more than 24 hours ahead is refused.
const MAX_EXPIRY_SECONDS = 24 * 60 * 60;

/**
 * The push service of `platform dev`, so that development never contacts a public one: each
 * local subscription is a simulated device whose keys the broker keeps (in
 * `platform.push_local_devices`), reached at `/_platform/push-service/<id>` on the broker's own
 * port. A message is accepted (201) only as a real push service and the device would accept
 * it together: the VAPID JWT (RFC 8292) verifies under the key in its `k` parameter, names this
 * origin as audience, expires within 24 hours, and `k` is the app's VAPID public key; the body
 * is aes128gcm (RFC 8188) and decrypts with the device's keys (RFC 8291, through `http_ece`,
 * the decoder `web-push` itself is built on). Every accepted message is kept for the dashboard.
 * An unknown or removed device answers 410, so the sender forgets the subscription.
 *
 * @example
 * ```ts
 * const local = new LocalPushService(db, vapid.publicKey);
 * local.mount(app);
 * const subscription = await local.subscribe(brokerUrl, userId);
 * ```
 */
export class LocalPushService {
  readonly #db: Database;
  readonly #applicationServerKey: string;

  constructor(db: Database, applicationServerKey: string) {
    this.#db = db;
    this.#applicationServerKey = applicationServerKey;
  }

  /** Makes a device and answers its subscription, as `PushManager.subscribe` would. */
  async subscribe(brokerUrl: string, userId: string | null): Promise<PushSubscriptionKeys> {
    const id = randomBytes(16).toString('base64url');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    await this.#db.query(
      'INSERT INTO platform.push_local_devices (id, user_id, private_key, auth) VALUES ($1, $2, $3, $4)',
      [id, userId, ecdh.getPrivateKey().toString('base64url'), auth.toString('base64url')],
    );
    return {
      endpoint: new URL(`${LOCAL_PUSH_PREFIX}/${id}`, brokerUrl).href,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    };
  }

  /** Removes a device; its endpoint answers 410 from now on. */
  async removeDevice(endpoint: string): Promise<void> {
    const id = localDeviceId(endpoint);
    if (id !== undefined) {
      await this.#db.query('DELETE FROM platform.push_local_devices WHERE id = $1', [id]);
    }
  }

  /** The notifications received, newest first. */
  async deliveries(limit = 50): Promise<LocalDelivery[]> {
    const { rows } = await this.#db.query<DeliveryRow>(
      'SELECT * FROM platform.push_local_deliveries ORDER BY received_at DESC, id DESC LIMIT $1',
      [limit],
    );
    return rows.map((row) => ({
      id: row.id,
      endpoint: row.endpoint,
      userId: row.user_id,
      payload: row.payload,
      ttlSeconds: row.ttl_seconds,
      urgency: row.urgency,
      topic: row.topic,
      receivedAt: new Date(row.received_at).toISOString(),
    }));
  }

  /** Serves the devices' endpoints on the broker's app (mount before sign-in's admission). */
  mount(app: Hono<BrokerEnv>): void {
    app.post(`${LOCAL_PUSH_PREFIX}/:id`, async (c) => {
      try {
        const id = await this.#receive(c.req.param('id'), c.req.raw);
        return c.body(null, 201, { Location: `${LOCAL_PUSH_PREFIX}/messages/${id}` });
      } catch (error) {
        if (error instanceof Refusal) return c.text(error.message, error.status as 400);
        throw error;
      }
    });
  }

  async #receive(deviceId: string, request: Request): Promise<string> {
    const { rows } = await this.#db.query<DeviceRow>(
      'SELECT * FROM platform.push_local_devices WHERE id = $1',
      [deviceId],
    );
    const device = rows[0];
    if (!device) throw new Refusal(410, 'No such subscription (it was removed).');
    const ttl = request.headers.get('ttl');
    if (ttl === null || !/^\d+$/.test(ttl)) throw new Refusal(400, 'A TTL header is required.');
    await this.#verifyVapid(request);
    if (request.headers.get('content-encoding') !== 'aes128gcm') {
      throw new Refusal(415, 'Content-Encoding must be aes128gcm.');
    }
    const body = Buffer.from(await request.arrayBuffer());
    if (body.byteLength > MAX_BODY) {
      throw new Refusal(413, `The body is ${body.byteLength} bytes; at most ${MAX_BODY}.`);
    }
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(device.private_key, 'base64url'));
    let plain: Buffer;
    try {
      plain = ece.decrypt(body, {
        version: 'aes128gcm',
        privateKey: ecdh,
        authSecret: Buffer.from(device.auth, 'base64url'),
      });
    } catch {
      throw new Refusal(400, 'The body does not decrypt with this subscription’s keys.');
    }
    const text = plain.toString('utf8');
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = text;
    }
    const id = newId('push');
    await this.#db.query(
      `INSERT INTO platform.push_local_deliveries (id, endpoint, user_id, payload, ttl_seconds, urgency, topic)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        new URL(request.url).pathname,
        device.user_id,
        JSON.stringify(payload),
        Number(ttl),
        request.headers.get('urgency'),
        request.headers.get('topic'),
      ],
    );
    return id;
  }

  async #verifyVapid(request: Request): Promise<void> {
    const header = request.headers.get('authorization') ?? '';
    const match = /^vapid\s+(.+)$/i.exec(header);
    if (!match) throw new Refusal(401, 'Authorization must be `vapid t=<jwt>, k=<key>`.');
    const params = new Map(
      match[1]!.split(',').map((part) => {
        const [name, ...value] = part.trim().split('=');
        return [name!.toLowerCase(), value.join('=')] as const;
      }),
    );
    const token = params.get('t');
    const key = params.get('k');
    if (!token || !key) throw new Refusal(401, 'The vapid authorization needs t and k.');
    if (key !== this.#applicationServerKey) {
      throw new Refusal(
        403,
        'k is not the application server key this subscription was made with.',
      );
    }
    const point = Buffer.from(key, 'base64url');
    let publicKey: ReturnType<typeof createPublicKey>;
    try {
      publicKey = createPublicKey({
        key: {
          kty: 'EC',
          crv: 'P-256',
          x: point.subarray(1, 33).toString('base64url'),
          y: point.subarray(33, 65).toString('base64url'),
        },
        format: 'jwk',
      });
    } catch {
      throw new Refusal(401, 'k is not a P-256 public key.');
    }
    const audience = new URL(request.url).origin;
    try {
      const { payload } = await jwtVerify(token, publicKey, {
        algorithms: ['ES256'],
        audience,
        requiredClaims: ['exp', 'sub'],
      });
      if ((payload.exp ?? 0) > Date.now() / 1000 + MAX_EXPIRY_SECONDS + 60) {
        throw new Refusal(401, 'The VAPID JWT expires more than 24 hours ahead.');
      }
      if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) {
        throw new Refusal(401, 'The VAPID sub claim must be a mailto: or https: contact.');
      }
    } catch (error) {
      if (error instanceof Refusal) throw error;
      throw new Refusal(401, `The VAPID JWT does not verify: ${(error as Error).message}`);
    }
  }
}

interface DeviceRow {
  id: string;
  user_id: string | null;
  private_key: string;
  auth: string;
}

interface DeliveryRow {
  id: string;
  endpoint: string;
  user_id: string | null;
  payload: unknown;
  ttl_seconds: number;
  urgency: string | null;
  topic: string | null;
  received_at: Date;
}
