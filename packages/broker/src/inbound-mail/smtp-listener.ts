import type { AddressInfo } from 'node:net';
import { isPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { InboundMail } from './inbound-mail.ts';

/** An error smtp-server answers with `responseCode`. */
type SmtpReply = Error & { responseCode: number };

const reply = (responseCode: number, text: string): SmtpReply =>
  Object.assign(new Error(text), { responseCode });

/**
 * The SMTP reply for a failed delivery (RFC 5321 4.2, enhanced codes of RFC 3463): an unknown
 * recipient or an app that takes no mail is a permanent 550, an oversized message 552, an
 * unreadable one 554; everything else (the Function failed, the app is restarting) is the
 * temporary 451, so the sender tries again later.
 */
export function smtpReplyFor(error: unknown): SmtpReply {
  if (isPlatformError(error)) {
    switch (error.code) {
      case 'EMAIL_RECIPIENT_UNKNOWN':
      case 'EMAIL_INBOUND_NOT_DECLARED':
        return reply(550, `5.1.1 ${error.message}`);
      case 'EMAIL_MESSAGE_TOO_LARGE':
        return reply(552, `5.3.4 ${error.message}`);
      case 'EMAIL_MESSAGE_INVALID':
        return reply(554, `5.6.0 ${error.message}`);
      default:
        return reply(451, `4.3.0 ${error.message}`);
    }
  }
  return reply(451, '4.3.0 The message could not be delivered now; try again later.');
}

/** How the listener runs. */
export interface SmtpListenerOptions {
  /** Port on 127.0.0.1; `0` picks a free one. */
  readonly port: number;
  /**
   * The inbound mail of the app's current broker; `undefined` while none serves (a restart):
   * mail is then deferred with 451.
   */
  readonly target: () => InboundMail | undefined;
  /** Printed on unexpected listener errors. */
  readonly onError?: (error: unknown) => void;
  /**
   * Told why a message was refused or deferred after `DATA` (the sender sees only the reply),
   * one line each.
   */
  readonly log?: (line: string) => void;
}

/**
 * A real SMTP server on 127.0.0.1 that receives mail for the app's addresses (`smtp-server`):
 * it announces `SIZE` (`limits.email.inbound.messageMaxBytes`), refuses unknown recipients at
 * `RCPT TO` (550), messages over the size at `MAIL FROM` or after `DATA` (552), and hands each
 * message to {@link InboundMail.receive}, answering 250 only once the inbound email Function
 * took it. No authentication and no TLS: it listens on loopback for development only.
 *
 * @example
 * ```ts
 * const smtp = await SmtpListener.listen({ port: 0, target: () => broker.inboundMail });
 * console.log(smtp.url); // smtp://127.0.0.1:52345
 * ```
 */
export class SmtpListener {
  readonly #server: SMTPServer;
  readonly port: number;

  private constructor(server: SMTPServer, port: number) {
    this.#server = server;
    this.port = port;
  }

  /** Binds the port and starts taking mail. */
  static async listen(options: SmtpListenerOptions): Promise<SmtpListener> {
    const unavailable = () => reply(451, '4.3.2 The app is starting; try again in a moment.');
    const server = new SMTPServer({
      name: 'localhost',
      banner: 'platform dev inbound mail (development only)',
      size: limits.email.inbound.messageMaxBytes,
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      hideSTARTTLS: true,
      logger: false,
      maxClients: 32,
      onRcptTo(address, session, callback) {
        const mail = options.target();
        if (!mail) return callback(unavailable());
        if (session.envelope.rcptTo.length >= limits.email.inbound.maxRecipients) {
          return callback(reply(452, '4.5.3 Too many recipients; send the rest separately.'));
        }
        try {
          mail.acceptRecipient(address.address);
          callback();
        } catch (error) {
          callback(smtpReplyFor(error));
        }
      },
      onData(stream, session, callback) {
        receive(stream, session, options.target, options.log).then(
          (text) => callback(null, text),
          (error: unknown) => callback(error as Error),
        );
      },
    });
    server.on('error', (error) => options.onError?.(error));
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.server.once('error', onError);
      server.listen(options.port, '127.0.0.1', () => {
        server.server.off('error', onError);
        resolve();
      });
    });
    return new SmtpListener(server, (server.server.address() as AddressInfo).port);
  }

  /** `smtp://127.0.0.1:<port>`. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Stops taking connections and closes the open ones. */
  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** Reads the message of one `DATA` and delivers it; resolves to the 250 reply's text. */
async function receive(
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
  target: () => InboundMail | undefined,
  log: ((line: string) => void) | undefined,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const max = limits.email.inbound.messageMaxBytes;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the limit the rest is read and dropped: the client is still sending it.
    if (size <= max) chunks.push(chunk);
  }
  if (stream.sizeExceeded || size > max) {
    throw reply(552, `5.3.4 The message is over ${max} bytes, the most inbound email takes.`);
  }
  const mail = target();
  if (!mail) throw reply(451, '4.3.2 The app is starting; try again in a moment.');
  const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
  try {
    const delivery = await mail.receive({
      raw: Buffer.concat(chunks),
      envelopeFrom,
      recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    });
    return `2.0.0 Taken by ${delivery.functionName} as ${delivery.id}`;
  } catch (error) {
    const answer = smtpReplyFor(error);
    // An unexpected error reaches the sender as a bare 451: the reason is only here.
    const why = isPlatformError(error)
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
    log?.(
      `inbound mail ${answer.responseCode >= 500 ? 'refused' : 'deferred'} (${answer.responseCode} ${answer.message.split(' ', 1)[0]}): ${why}`,
    );
    throw answer;
  }
}
