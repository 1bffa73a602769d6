import { z } from 'zod';
import { isEmailAddress, isOneLine } from '../email-address.ts';
import { limits } from '../limits.ts';
import { contextRoutes } from '../routes.ts';
import { defineRoute } from './define.ts';

const recipients = z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(50)]);

/** One plain address (`local@domain`); see {@link isEmailAddress}. */
const emailAddress = z.string().refine(isEmailAddress, {
  message: `Expected one email address (local@domain, at most ${limits.email.addressMaxLength} characters, no spaces, line breaks or control characters)`,
});

const emailRecipients = z.union([
  emailAddress,
  z.array(emailAddress).min(1).max(limits.email.maxRecipients),
]);

/** The message of `email.send`. */
export const emailMessageSchema = z
  .strictObject({
    /** A sender alias declared in platform.yaml (the local part, such as `support`). */
    from: z
      .string()
      .min(1)
      .refine(isOneLine, { message: 'An alias is one line: no control characters' }),
    /** Plain addresses only: a line break or a second address inside one is refused. */
    to: emailRecipients,
    /** One line: a line break would start another header. */
    subject: z.string().min(1).max(limits.email.subjectMaxLength).refine(isOneLine, {
      message: 'A subject is one line: no line breaks or control characters',
    }),
    text: z.string().optional(),
    html: z.string().optional(),
    replyTo: emailAddress.optional(),
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
