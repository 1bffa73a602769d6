import { createTransport } from 'nodemailer';
import type { ServiceLogger } from '../observability/logger.ts';
import type { MailDelivery, MailTransport, OutgoingMail } from '../outbox/mail-delivery.ts';
import type { MailSetting } from './mail-settings.ts';

/** How long one email may take at the mail server before it counts as not sent. */
const SEND_TIMEOUT_MS = 30_000;

/** The service's SMTP connection, shared by its sign-in and every deployed app. */
export interface SmtpMail {
  /** The delivery of the central sign-in and onboarding: from the service's own sender. */
  readonly service: MailDelivery;
  /** The delivery of a deployed app: from `<alias>@<app>.<base domain>`. */
  app(appId: string): MailDelivery;
  close(): void;
}

/**
 * The outbound mail of `platform serve` (docs/production.md, "Email"), or, without a mail
 * server set, a delivery that refuses (`FEATURE_NOT_AVAILABLE`): nothing is captured or printed
 * in its place. Each email sent is one log line (`mail sent`) with the sender alias and the
 * number of recipients: never an address, the subject or the body, since a sign-in email's body
 * is a key to an account.
 */
export function smtpMail(
  setting: MailSetting | undefined,
  baseDomain: string,
  logger: ServiceLogger,
): SmtpMail {
  if (setting === undefined) {
    const none: MailDelivery = { kind: 'none' };
    return { service: none, app: () => none, close: () => undefined };
  }
  const transporter = createTransport({
    host: setting.host,
    port: setting.port,
    secure: setting.secure,
    pool: true,
    connectionTimeout: SEND_TIMEOUT_MS,
    greetingTimeout: SEND_TIMEOUT_MS,
    socketTimeout: SEND_TIMEOUT_MS,
    ...(setting.user === undefined
      ? {}
      : { auth: { user: setting.user, pass: setting.password ?? '' } }),
  });
  const transport = (app: string): MailTransport => ({
    async send(mail: OutgoingMail) {
      const recipients = mail.to.length;
      try {
        await transporter.sendMail({
          from: mail.from,
          to: [...mail.to],
          subject: mail.subject,
          ...(mail.text === undefined ? {} : { text: mail.text }),
          ...(mail.html === undefined ? {} : { html: mail.html }),
          ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
        });
      } catch (error) {
        // The server's code and command say what went wrong; its text may quote the message.
        const { code, responseCode, command } = error as {
          code?: string;
          responseCode?: number;
          command?: string;
        };
        logger.warn(
          { event: 'mail', app, recipients, code, responseCode, command },
          'mail not sent',
        );
        throw error;
      }
      logger.info({ event: 'mail', app, from: mail.from, recipients }, 'mail sent');
    },
  });
  const service = transport('base');
  return {
    service: { kind: 'send', transport: service, fromAddress: () => setting.from },
    app: (appId) => ({
      kind: 'send',
      transport: transport(appId),
      fromAddress: (alias) => `${alias}@${appId}.${baseDomain}`,
    }),
    close: () => transporter.close(),
  };
}
