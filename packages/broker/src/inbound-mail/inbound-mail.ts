import { isPlatformError, PlatformError } from '@platform/errors';
import { type InboundEmail, inboundEmailPayload, limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { FileService } from '../files/file-service.ts';
import type { FunctionInvoker } from '../functions/invoker.ts';
import { systemCaller } from '../kernel/caller.ts';
import { newId } from '../kernel/ids.ts';
import { isGone, type ProcessMark, thisProcess } from '../kernel/process-mark.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { printable } from '../logs/printable.ts';
import type { ReceivedEmail, ReceivedMailLog } from '../outbox/mail-log.ts';
import type { InboundAddresses } from './addresses.ts';
import { parseMessage } from './parse-message.ts';

/** One message as it arrived: its bytes and the SMTP envelope. */
export interface IncomingMessage {
  /** The whole message (RFC 5322 headers and MIME body). */
  readonly raw: Uint8Array;
  /** `MAIL FROM` (`null` for the null sender `<>` or none given). */
  readonly envelopeFrom: string | null;
  /**
   * `RCPT TO`: the app's addresses it is for. Omitted (a `.eml` file): the app's addresses
   * among its `To` and `Cc` headers.
   */
  readonly recipients?: readonly string[];
}

/** A message its Function took. */
export interface Delivery {
  readonly id: string;
  readonly requestId: string;
  readonly functionName: string;
  /** The app's addresses it was delivered to. */
  readonly to: readonly string[];
  /** The Function's JSON result (`null` when it answered bytes or nothing). */
  readonly result: unknown;
}

/** What an {@link InboundMail} serves. */
export interface InboundMailOptions {
  /** Told one line for each message taken (`platform dev` prints it). @default nowhere */
  readonly activity?: LogWriter;
  readonly db: Database;
  readonly files: FileService;
  readonly invoker: Pick<FunctionInvoker, 'call'>;
  readonly addresses: InboundAddresses;
  /** `email.inbound.function` of platform.yaml; undefined: the app takes no mail. */
  readonly functionName: string | undefined;
  /**
   * True while the app is paused for verification (spec 3.3): Functions stop, so mail is
   * deferred (`ACCOUNT_VERIFICATION_REQUIRED`, SMTP 451) and taken after the resume.
   * @default never paused
   */
  readonly paused?: () => Promise<boolean> | boolean;
}

interface AttemptRow {
  id: string;
  holder: ProcessMark;
  file_ids: string[];
}

interface InboundRow {
  id: string;
  recipients: string[];
  from_address: string;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  attachments: ReceivedEmail['attachments'];
  request_id: string;
  function_name: string;
  created_at: Date;
}

/**
 * Inbound email (spec 2.4, 6.2): each received message invokes the inbound email Function
 * (`email.inbound.function`, a system Function) with the payload of `inboundEmailSchema`, its
 * attachments stored as managed files first. The SMTP listener and the broker API's `.eml`
 * route both deliver through {@link InboundMail.receive}, so they refuse the same messages
 * with the same codes. A message is taken only when the Function succeeds: then it is recorded
 * for the outbox; otherwise its attachment files are removed again and nothing is recorded, so
 * a sender may retry. An attempt that stores attachments is recorded first (its file ids and
 * this process), so that the files of a delivery the broker was killed during are removed at
 * the next start ({@link InboundMail.sweepInterrupted}).
 *
 * @example
 * ```ts
 * const mail = new InboundMail({ db, files, invoker, addresses, functionName: 'inboundEmail' });
 * await mail.receive({ raw, envelopeFrom: 'ann@example.com', recipients: ['todo@todo.localhost'] });
 * ```
 */
export class InboundMail implements ReceivedMailLog {
  readonly #o: InboundMailOptions;

  constructor(options: InboundMailOptions) {
    this.#o = options;
  }

  /** The app's addresses. */
  get addresses(): InboundAddresses {
    return this.#o.addresses;
  }

  /** The inbound email Function, if platform.yaml declares one. */
  get functionName(): string | undefined {
    return this.#o.functionName;
  }

  /**
   * The app's address for a recipient, checked as `RCPT TO` is: `EMAIL_INBOUND_NOT_DECLARED`
   * when the app takes no mail, `EMAIL_RECIPIENT_UNKNOWN` for another address.
   */
  acceptRecipient(address: string): string {
    this.#requireFunction();
    return this.#o.addresses.require(address);
  }

  /** Delivers one message to the inbound email Function (see the class). */
  async receive(message: IncomingMessage): Promise<Delivery> {
    const functionName = this.#requireFunction();
    const { maxRecipients } = limits.email.inbound;
    const explicit = message.recipients !== undefined;
    const recipients = [...new Set((message.recipients ?? []).map((a) => a.toLowerCase()))];
    if (recipients.length > maxRecipients) {
      throw new PlatformError({
        code: 'EMAIL_MESSAGE_TOO_LARGE',
        message: `The message names ${recipients.length} recipients; inbound email takes at most ${maxRecipients}.`,
      });
    }
    const to = recipients.map((address) => this.#o.addresses.require(address));
    const parsed = await parseMessage(message.raw, message.envelopeFrom);
    if (await this.#o.paused?.()) {
      throw new PlatformError({
        code: 'ACCOUNT_VERIFICATION_REQUIRED',
        status: 503,
        message:
          'This app is paused until its owner confirms their email address; the message was not taken.',
      });
    }
    if (!explicit) {
      for (const address of parsed.headerRecipients) {
        const matched = this.#o.addresses.match(address);
        if (matched !== undefined && !to.includes(matched)) to.push(matched);
      }
      if (to.length === 0) {
        throw new PlatformError({
          code: 'EMAIL_RECIPIENT_UNKNOWN',
          message: `No To or Cc address of the message is an address of this app (${this.#o.addresses.list().join(', ') || 'none declared'}).`,
          details: { recipients: parsed.headerRecipients, addresses: this.#o.addresses.list() },
        });
      }
    }
    const id = newId('inboundMail');
    const requestId = newId('request');
    const caller = systemCaller();
    const stored: InboundEmail['attachments'][number][] = [];
    // The attempt is recorded with its file ids before any byte is written, so that a broker
    // killed from here on leaves a record the next start clears (see sweepInterrupted).
    const fileIds = parsed.attachments.map(() => newId('file'));
    const recorded = fileIds.length > 0;
    if (recorded) {
      await this.#o.db.query(
        'INSERT INTO platform.inbound_attempts (id, holder, file_ids) VALUES ($1, $2::jsonb, $3::jsonb)',
        [id, JSON.stringify(thisProcess()), JSON.stringify(fileIds)],
      );
    }
    let result: unknown = null;
    try {
      for (const [index, attachment] of parsed.attachments.entries()) {
        const info = await this.#o.files.upload(caller, attachment, { id: fileIds[index] });
        stored.push({
          file: info.ref,
          name: info.name,
          contentType: info.contentType,
          size: info.size,
        });
      }
      let payload: InboundEmail;
      try {
        payload = inboundEmailPayload({
          id,
          receivedAt: new Date().toISOString(),
          from: parsed.from,
          fromName: parsed.fromName,
          to,
          cc: parsed.cc.slice(0, maxRecipients),
          replyTo: parsed.replyTo,
          subject: parsed.subject,
          text: parsed.text,
          html: parsed.html,
          messageId: parsed.messageId,
          inReplyTo: parsed.inReplyTo,
          references: parsed.references,
          date: parsed.date,
          attachments: stored,
        });
      } catch (error) {
        throw new PlatformError({
          code: 'EMAIL_MESSAGE_INVALID',
          message: `The message does not fit the inbound email payload: ${(error as Error).message}`,
          ...(isPlatformError(error) && error.details ? { details: error.details } : {}),
        });
      }
      result = await this.#invoke(functionName, payload, requestId);
    } catch (error) {
      if (recorded) await this.#abandon(id, fileIds);
      throw error;
    }
    // The delivery and the end of its attempt commit together: a record left over is always an
    // attempt whose mail was never recorded (nor acknowledged to the sender).
    await this.#o.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO platform.inbound_mail (id, envelope_from, recipients, from_address, from_name, subject,
           text_body, html_body, message_id, attachments, size, request_id, function_name)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          id,
          message.envelopeFrom,
          JSON.stringify(to),
          parsed.from,
          parsed.fromName,
          parsed.subject,
          parsed.text,
          parsed.html,
          parsed.messageId,
          JSON.stringify(
            stored.map(({ name, contentType, size }) => ({ name, contentType, size })),
          ),
          message.raw.byteLength,
          requestId,
          functionName,
        ],
      );
      if (recorded) await tx.query('DELETE FROM platform.inbound_attempts WHERE id = $1', [id]);
    });
    // Sender and subject are the outside sender's text: made printable.
    this.#o.activity?.(
      printable(
        `mail received ${parsed.from} -> ${to.join(', ')} "${parsed.subject}" ${functionName}`,
      ),
    );
    return { id, requestId, functionName, to, result };
  }

  /**
   * Clears the deliveries a broker left unfinished when it stopped without unwinding (killed,
   * even by SIGKILL, or the machine went down): for each recorded attempt whose holder is gone,
   * removes its attachment files (rows and contents, also of an upload cut off half-way), then
   * its record. Such a delivery was never recorded nor acknowledged, so its sender sends it
   * again. Attempts of live brokers, and of brokers on other machines sharing the database, are
   * left alone. Answers how many attempts it cleared and how many files they named.
   */
  async sweepInterrupted(): Promise<{ attempts: number; files: number }> {
    const { rows } = await this.#o.db.query<AttemptRow>(
      'SELECT id, holder, file_ids FROM platform.inbound_attempts ORDER BY started_at',
    );
    let attempts = 0;
    let files = 0;
    for (const row of rows) {
      if (!isGone(row.holder)) continue;
      // Files first: a start killed in between finds the record again and finishes.
      await this.#o.files.discard(row.file_ids);
      await this.#o.db.query('DELETE FROM platform.inbound_attempts WHERE id = $1', [row.id]);
      attempts++;
      files += row.file_ids.length;
    }
    return { attempts, files };
  }

  // A failed attempt: its files go (also those the Function kept a ref to: the message was not
  // taken), then its record. Should this fail too, the record stays for a later start.
  async #abandon(id: string, fileIds: readonly string[]): Promise<void> {
    try {
      await this.#o.files.discard(fileIds);
      await this.#o.db.query('DELETE FROM platform.inbound_attempts WHERE id = $1', [id]);
    } catch {
      // The delivery's own error is the one the sender needs.
    }
  }

  /** Received emails, newest first (the outbox's inbound side). */
  async list(limit: number): Promise<ReceivedEmail[]> {
    const { rows } = await this.#o.db.query<InboundRow>(
      'SELECT * FROM platform.inbound_mail ORDER BY created_at DESC, id DESC LIMIT $1',
      [limit],
    );
    return rows.map((row) => ({
      id: row.id,
      from: row.from_address,
      to: row.recipients,
      subject: row.subject,
      text: row.text_body,
      html: row.html_body,
      attachments: row.attachments,
      requestId: row.request_id,
      functionName: row.function_name,
      createdAt: new Date(row.created_at).toISOString(),
    }));
  }

  async #invoke(functionName: string, payload: InboundEmail, requestId: string): Promise<unknown> {
    try {
      const response = await this.#o.invoker.call(functionName, {
        requestId,
        input: payload,
        caller: systemCaller(),
        origin: 'platform',
        via: 'inbound',
      });
      const body = await response.text();
      const json = response.headers.get('content-type')?.includes('application/json');
      if (!json || body === '') return null;
      const answer = JSON.parse(body) as { result?: unknown };
      return answer.result ?? null;
    } catch (error) {
      const cause = isPlatformError(error)
        ? { code: error.code, message: error.message }
        : { code: 'INTERNAL', message: (error as Error).message };
      throw new PlatformError({
        code: 'EMAIL_HANDLER_FAILED',
        message: `The inbound email Function ${functionName} failed (${cause.code}: ${cause.message}); the message was not taken.`,
        details: { function: functionName, requestId, cause },
      });
    }
  }

  #requireFunction(): string {
    const name = this.#o.functionName;
    if (name === undefined) {
      throw new PlatformError({
        code: 'EMAIL_INBOUND_NOT_DECLARED',
        message:
          'This app takes no mail: platform.yaml declares no email.inbound.function (docs/email.md).',
      });
    }
    return name;
  }
}
