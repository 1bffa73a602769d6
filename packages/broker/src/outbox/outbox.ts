import { PlatformError } from '@platform/errors';
import type { Database } from '../db/database.ts';
import { newId } from '../kernel/ids.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { printable } from '../logs/printable.ts';
import { captureMail, type MailDelivery } from './mail-delivery.ts';

/** One email as a Function asked to send it. */
export interface EmailMessage {
  /** A declared sender alias (the local part, such as `support`). */
  readonly from: string;
  readonly to: string | readonly string[];
  readonly subject: string;
  readonly text?: string | undefined;
  readonly html?: string | undefined;
  readonly replyTo?: string | undefined;
}

/** A captured email. */
export interface CapturedEmail {
  readonly id: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string | null;
  readonly html: string | null;
  readonly replyTo: string | null;
  readonly requestId: string | null;
  readonly functionName: string | null;
  readonly createdAt: string;
}

interface OutboxRow {
  id: string;
  from_alias: string;
  recipients: string[];
  subject: string;
  text_body: string | null;
  html_body: string | null;
  reply_to: string | null;
  request_id: string | null;
  function_name: string | null;
  created_at: Date;
}

// A CR or LF in a header value would end the header and start another (`Bcc:` injection).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const HEADER_CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The broker's outbound email. In development (spec Appendix 2) every `email.send` from a
 * declared alias is captured in the database (so it survives restarts) and never sent;
 * `platform outbox` and the broker's API list it. Under `platform serve` its delivery sends it
 * over SMTP instead and keeps nothing, or, without outbound mail set, refuses it.
 *
 * @example
 * ```ts
 * const outbox = new Outbox(db);
 * await outbox.capture({ from: 'support', to: 'a@example.com', subject: 'Hi', text: 'Hello' }, ['support']);
 * ```
 */
export class Outbox {
  readonly #db: Database;
  readonly #activity: LogWriter | undefined;
  readonly #delivery: MailDelivery;

  readonly #held: () => Promise<boolean>;

  /**
   * `activity` is told one line for each email captured (`platform dev` prints it). `delivery`
   * chooses what becomes of an email (@default captured), except while `held` answers true (a
   * copy restored from a backup for inspection): then every email is captured, never sent.
   */
  constructor(
    db: Database,
    activity?: LogWriter,
    delivery: MailDelivery = captureMail,
    held: () => Promise<boolean> = async () => false,
  ) {
    this.#db = db;
    this.#activity = activity;
    this.#delivery = delivery;
    this.#held = held;
  }

  /**
   * Whether email is captured here for development: only then may a sign-in link also be
   * printed in the terminal. A link sent for real, or not sent, is never printed anywhere.
   */
  get capturing(): boolean {
    return this.#delivery.kind === 'capture';
  }

  /**
   * `FEATURE_NOT_AVAILABLE` when email can be neither sent nor captured: asked before anything
   * that would send one (a sign-in link), so the answer is the same for every address.
   */
  requireDelivery(): void {
    if (this.#delivery.kind !== 'none') return;
    throw new PlatformError({
      code: 'FEATURE_NOT_AVAILABLE',
      message:
        'Email is not available: this service has no outbound mail server set (PLATFORM_SMTP_URL, docs/production.md "Email"), so nothing was sent.',
    });
  }

  /**
   * Captures a message in development, or sends it (`captured: false`);
   * `EMAIL_ALIAS_NOT_DECLARED` for a sender the manifest does not declare, `INVALID_INPUT` for a
   * control character (CR, LF) in an address or the subject, `FEATURE_NOT_AVAILABLE` when the
   * service has no outbound mail, `INTERNAL` when the mail server did not accept it.
   */
  async capture(
    message: EmailMessage,
    declaredAliases: readonly string[],
    origin: { requestId?: string; functionName?: string } = {},
  ): Promise<{ id: string; captured: boolean }> {
    if (!declaredAliases.includes(message.from)) {
      throw new PlatformError({
        code: 'EMAIL_ALIAS_NOT_DECLARED',
        message: `Sender alias "${message.from}" is not declared in platform.yaml.`,
        details: { from: message.from },
      });
    }
    const to = typeof message.to === 'string' ? [message.to] : [...message.to];
    // Also checked by the route's schema; here for every other caller of the outbox.
    for (const [field, value] of [
      ...to.map((address) => ['to', address] as const),
      ['subject', message.subject] as const,
      ['replyTo', message.replyTo ?? ''] as const,
    ]) {
      if (HEADER_CONTROL.test(value)) {
        throw new PlatformError({
          code: 'INVALID_INPUT',
          message: `The email's ${field} must not contain control characters such as CR or LF.`,
          details: { field },
        });
      }
    }
    const id = newId('email');
    if (this.#delivery.kind !== 'capture' && !(await this.#held()))
      return this.#send(id, message, to);
    await this.#db.query(
      `INSERT INTO platform.outbox (id, from_alias, recipients, subject, text_body, html_body, reply_to, request_id, function_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        message.from,
        JSON.stringify(to),
        message.subject,
        message.text ?? null,
        message.html ?? null,
        message.replyTo ?? null,
        origin.requestId ?? null,
        origin.functionName ?? null,
      ],
    );
    // The subject and addresses are the Function's text: made printable.
    this.#activity?.(
      printable(
        `mail sent ${message.from} -> ${to.join(', ')} "${message.subject}"${origin.functionName ? ` ${origin.functionName}` : ''}`,
      ),
    );
    return { id, captured: true };
  }

  async #send(
    id: string,
    message: EmailMessage,
    to: readonly string[],
  ): Promise<{ id: string; captured: false }> {
    this.requireDelivery();
    const delivery = this.#delivery as Extract<MailDelivery, { kind: 'send' }>;
    try {
      await delivery.transport.send({
        from: delivery.fromAddress(message.from),
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        replyTo: message.replyTo,
      });
    } catch {
      // The server's answer may quote the message or the account: it is not repeated (the
      // transport logs what the operator needs).
      throw new PlatformError({
        code: 'INTERNAL',
        message: 'The email was not sent: the mail server did not accept it. Try again later.',
        details: { id },
      });
    }
    return { id, captured: false };
  }

  /** The captured email `id`; `EMAIL_NOT_FOUND` when the outbox has none. */
  async get(id: string): Promise<CapturedEmail> {
    const { rows } = await this.#db.query<OutboxRow>(
      'SELECT * FROM platform.outbox WHERE id = $1',
      [id],
    );
    const row = rows[0];
    if (!row) {
      throw new PlatformError({
        code: 'EMAIL_NOT_FOUND',
        message: `The outbox has no captured email ${id}.`,
        details: { id },
      });
    }
    return toCaptured(row);
  }

  /** Captured emails, newest first. */
  async list(limit = 50): Promise<CapturedEmail[]> {
    const { rows } = await this.#db.query<OutboxRow>(
      'SELECT * FROM platform.outbox ORDER BY created_at DESC, id DESC LIMIT $1',
      [limit],
    );
    return rows.map(toCaptured);
  }
}

function toCaptured(row: OutboxRow): CapturedEmail {
  return {
    id: row.id,
    from: row.from_alias,
    to: row.recipients,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    replyTo: row.reply_to,
    requestId: row.request_id,
    functionName: row.function_name,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
