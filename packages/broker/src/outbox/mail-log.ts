import type { CapturedEmail } from './outbox.ts';

/** One received email as the outbox lists it (its Function took it). */
export interface ReceivedEmail {
  readonly id: string;
  /** The sender's address. */
  readonly from: string;
  /** The app's addresses it was delivered to. */
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string | null;
  readonly html: string | null;
  /** Names, types and sizes only: the bytes are the app's managed files. */
  readonly attachments: readonly {
    readonly name: string;
    readonly contentType: string;
    readonly size: number;
  }[];
  readonly requestId: string;
  /** The inbound email Function that took it. */
  readonly functionName: string;
  readonly createdAt: string;
}

/** Where the received emails come from (the inbound mail feature; `app/` hands it in). */
export interface ReceivedMailLog {
  /** Received emails, newest first. */
  list(limit: number): Promise<ReceivedEmail[]>;
}

/** An entry of the outbox: sent (captured) or received mail, side by side. */
export type MailLogEntry =
  | ({ readonly direction: 'outbound' } & CapturedEmail)
  | ({ readonly direction: 'inbound' } & ReceivedEmail);

/**
 * The newest `limit` emails of both directions, newest first: what the outbox route, the CLI
 * and the dashboard show.
 */
export async function listMail(
  outbox: { list(limit: number): Promise<CapturedEmail[]> },
  received: ReceivedMailLog | undefined,
  limit: number,
): Promise<MailLogEntry[]> {
  const [sent, got] = await Promise.all([
    outbox.list(limit),
    received ? received.list(limit) : Promise.resolve([]),
  ]);
  const entries: MailLogEntry[] = [
    ...sent.map((email) => ({ direction: 'outbound' as const, ...email })),
    ...got.map((email) => ({ direction: 'inbound' as const, ...email })),
  ];
  entries.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  return entries.slice(0, limit);
}
