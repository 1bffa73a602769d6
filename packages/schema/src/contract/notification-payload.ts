import { PlatformError } from '@platform/errors';
import { limits } from '../limits.ts';

/** What a device receives: the JSON text of a notification, without its recipients. */
export interface NotificationPayload {
  readonly title: string;
  readonly body?: string | undefined;
  readonly url?: string | undefined;
  readonly icon?: string | undefined;
  readonly tag?: string | undefined;
}

/**
 * The bytes a push message carries for `notification` (its JSON without `to`), checked against
 * `limits.push.payloadMaxBytes`: `NOTIFICATION_TOO_LARGE` when it cannot fit one Web Push
 * message. The local broker and the test kit both call it, so they refuse the same
 * notifications with the same code.
 *
 * @example
 * ```ts
 * const bytes = encodeNotificationPayload({ title: 'Milk', body: 'Buy milk', url: '/todos' });
 * ```
 */
export function encodeNotificationPayload(notification: NotificationPayload): Uint8Array {
  const payload: NotificationPayload = {
    title: notification.title,
    ...(notification.body === undefined ? {} : { body: notification.body }),
    ...(notification.url === undefined ? {} : { url: notification.url }),
    ...(notification.icon === undefined ? {} : { icon: notification.icon }),
    ...(notification.tag === undefined ? {} : { tag: notification.tag }),
  };
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  const max = limits.push.payloadMaxBytes;
  if (bytes.byteLength > max) {
    throw new PlatformError({
      code: 'NOTIFICATION_TOO_LARGE',
      message: `The notification is ${bytes.byteLength} bytes as JSON; a Web Push message carries at most ${max}. Shorten its title or body, or send a url to open instead.`,
      details: { bytes: bytes.byteLength, maxBytes: max },
    });
  }
  return bytes;
}
