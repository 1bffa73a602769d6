import { z } from 'zod';
import { limits } from '../limits.ts';
import { pushRoutes } from '../routes.ts';
import { defineRoute } from './define.ts';

// Unpadded as browsers write it; padding is tolerated.
const base64url = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * A browser's `PushSubscription.toJSON()`, as `pushSubscribe` accepts it. The shape is checked
 * here; the broker also checks that `p256dh` is a point of P-256 and that the endpoint may be
 * used (https, or a loopback push service in development).
 */
export const pushSubscriptionSchema = z.object({
  endpoint: z.string().min(1).max(limits.push.endpointMaxLength),
  /** Ignored: push services say when a subscription ends by answering 404 or 410. */
  expirationTime: z.number().nullable().optional(),
  keys: z.strictObject({
    /** The device's P-256 public key, uncompressed (65 bytes), base64url. */
    p256dh: z.string().max(128).regex(base64url, 'p256dh must be base64url'),
    /** The device's 16-byte authentication secret, base64url. */
    auth: z.string().max(64).regex(base64url, 'auth must be base64url'),
  }),
});

/** `GET /_platform/api/push/key`: the app's VAPID public key (never the private key). */
export const pushKey = defineRoute('pushKey', pushRoutes.pushKey, {
  summary: "The app's VAPID public key and which push service subscriptions use.",
  request: z.undefined(),
  response: z.strictObject({
    /** The uncompressed P-256 public key, base64url (the `applicationServerKey`). */
    publicKey: z.string().min(1),
    pushService: z.enum(['local', 'browser']),
  }),
  errors: [],
});

/** `POST /_platform/api/push/subscriptions`: subscribes the signed-in user on this device. */
export const pushSubscribe = defineRoute('pushSubscribe', pushRoutes.pushSubscribe, {
  summary: 'Store a push subscription of the signed-in user.',
  request: z.union([pushSubscriptionSchema, z.strictObject({ local: z.literal(true) })]),
  response: z.strictObject({ endpoint: z.string().min(1) }),
  errors: ['AUTH_REQUIRED', 'PUSH_SUBSCRIPTION_INVALID'],
});

/** `POST /_platform/api/push/subscriptions/remove`: forgets one of the user's subscriptions. */
export const pushUnsubscribe = defineRoute('pushUnsubscribe', pushRoutes.pushUnsubscribe, {
  summary: 'Remove a push subscription of the signed-in user.',
  request: z.strictObject({ endpoint: z.string().min(1).max(limits.push.endpointMaxLength) }),
  response: z.strictObject({ removed: z.boolean() }),
  errors: ['AUTH_REQUIRED'],
});
