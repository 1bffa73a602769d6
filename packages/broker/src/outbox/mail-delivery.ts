/** One email as it leaves the service: full addresses, checked already. */
export interface OutgoingMail {
  /** The full sender address (`support@notes.apps.example.com`). */
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text?: string | undefined;
  readonly html?: string | undefined;
  readonly replyTo?: string | undefined;
}

/** What hands an email to a mail server (`platform serve`: SMTP). */
export interface MailTransport {
  /** Resolves once the server accepted the email; rejects when it did not. */
  send(mail: OutgoingMail): Promise<void>;
}

/**
 * What becomes of an email the broker or a Function sends:
 * - `capture`: development email, kept in the outbox and never sent; sign-in links are also
 *   printed in the terminal (`platform dev`).
 * - `send`: handed to `transport` from `<alias>@` the sender's domain (`platform serve` with
 *   outbound mail set); nothing is kept and no link is printed.
 * - `none`: no outbound mail (`platform serve` without it): sending answers
 *   `FEATURE_NOT_AVAILABLE` and nothing is kept or printed.
 */
export type MailDelivery =
  | { readonly kind: 'capture' }
  | {
      readonly kind: 'send';
      readonly transport: MailTransport;
      /** The full sender address of a declared alias. */
      readonly fromAddress: (alias: string) => string;
    }
  | { readonly kind: 'none' };

/** Development email: captured, never sent. */
export const captureMail: MailDelivery = { kind: 'capture' };
