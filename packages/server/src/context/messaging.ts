import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import {
  type Declarations,
  encodeNotificationPayload,
  realtimeMessageBytes,
} from '@platform/schema/contract';
import type { RuntimeClient } from './transport.ts';
import type { EmailClient, NotificationsClient, RealtimeClient } from './types.ts';

const list = (to: string | readonly string[]) => (typeof to === 'string' ? to : [...to]);

/** `ctx.email`: sends from a declared alias (checked here first); development captures it. */
export function createEmail(client: RuntimeClient, declared: Declarations): EmailClient {
  return {
    async send(message) {
      if (!declared.emailAliases.includes(message.from)) {
        throw new PlatformError({
          code: 'EMAIL_ALIAS_NOT_DECLARED',
          message: `The sender alias ${JSON.stringify(message.from)} is not declared in platform.yaml.`,
          details: { from: message.from },
        });
      }
      return client.call(
        'emailSend',
        {},
        {
          from: message.from,
          to: list(message.to),
          subject: message.subject,
          ...(message.text === undefined ? {} : { text: message.text }),
          ...(message.html === undefined ? {} : { html: message.html }),
          ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
        },
      );
    },
  };
}

/** `ctx.notifications`: visible Web Push to subscribed app users. */
export function createNotifications(client: RuntimeClient): NotificationsClient {
  return {
    async send(notification) {
      // The broker checks it too; checking here first fails before a round trip.
      encodeNotificationPayload(notification);
      return client.call(
        'notificationsSend',
        {},
        {
          to: list(notification.to),
          title: notification.title,
          ...(notification.body === undefined ? {} : { body: notification.body }),
          ...(notification.url === undefined ? {} : { url: notification.url }),
          ...(notification.icon === undefined ? {} : { icon: notification.icon }),
          ...(notification.tag === undefined ? {} : { tag: notification.tag }),
        },
      );
    },
  };
}

/** `ctx.realtime`: broadcasts to a declared channel's subscribers. */
export function createRealtime(client: RuntimeClient): RealtimeClient {
  return {
    async broadcast(channel, event, payload) {
      // The broker checks it too; checking here first fails before a round trip.
      const bytes = realtimeMessageBytes({ event, payload });
      if (bytes > limits.realtime.messageMaxBytes) {
        throw new PlatformError({
          code: 'REALTIME_MESSAGE_TOO_LARGE',
          message: `The realtime message is ${bytes} bytes of JSON; at most ${limits.realtime.messageMaxBytes} are allowed.`,
          details: { bytes, maxBytes: limits.realtime.messageMaxBytes },
        });
      }
      return client.call('realtimeBroadcast', {}, { channel, event, payload });
    },
  };
}
