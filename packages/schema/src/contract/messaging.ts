import { z } from 'zod';
import { contextRoutes } from '../routes.ts';
import { defineRoute } from './define.ts';

// A CR or LF in a header value would end the header and start another (`Bcc:` injection).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const noControl = 'must not contain control characters such as CR or LF';

/** A string that becomes a mail header (an address, a subject): no control characters. */
const headerText = () => z.string().regex(NO_CONTROL, noControl);

const recipients = z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(50)]);
const address = headerText().min(1);
const emailRecipients = z.union([address, z.array(address).min(1).max(50)]);

/** The message of `email.send`. */
export const emailMessageSchema = z
  .strictObject({
    /** A sender alias declared in platform.yaml (the local part, such as `support`). */
    from: address,
    to: emailRecipients,
    subject: headerText().min(1).max(998),
    text: z.string().optional(),
    html: z.string().optional(),
    replyTo: headerText().min(3).optional(),
  })
  .refine((m) => m.text !== undefined || m.html !== undefined, {
    message: 'An email needs text or html',
  });

/** `email.send(message)`. In development the broker captures the message and sends nothing. */
export const emailSend = defineRoute('emailSend', contextRoutes.emailSend, {
  summary: 'Send an email from a declared application alias.',
  request: emailMessageSchema,
  response: z.strictObject({ id: z.string().min(1), captured: z.boolean() }),
  errors: ['EMAIL_ALIAS_NOT_DECLARED'],
});

/** The notification of `notifications.send` (docs/notifications.md). */
export const notificationSchema = z.strictObject({
  /** App user ids; each of their subscribed devices receives the notification. */
  to: recipients,
  title: z.string().min(1).max(200),
  body: z.string().max(1000).optional(),
  /** Opened when the notification is clicked; a path of the app or an absolute URL. */
  url: z.string().min(1).max(2048).optional(),
  /** Shown beside the notification; a path of the app or an absolute URL. */
  icon: z.string().min(1).max(2048).optional(),
  /** Replaces an earlier notification with the same tag on a device. */
  tag: z.string().min(1).max(64).optional(),
});

/** `notifications.send(notification)`: visible Web Push to subscribed app users. */
export const notificationsSend = defineRoute('notificationsSend', contextRoutes.notificationsSend, {
  summary: 'Send a visible Web Push notification to subscribed app users.',
  request: notificationSchema,
  /** `delivered`: how many devices' push services accepted it (0 when nobody is subscribed). */
  response: z.strictObject({ delivered: z.int().min(0) }),
  errors: ['NOTIFICATION_TOO_LARGE', 'PUSH_SERVICE_UNAVAILABLE'],
});
