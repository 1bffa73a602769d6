import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The received emails of `InboundMail` (`inbound-mail.ts`): one row per message its Function
 * took, written only after the Function succeeded, so a refused or failed delivery leaves none.
 * A step of the platform schema (`app/platform-schema.ts` numbers it).
 */
export const inboundMailTableStep: SchemaChange = {
  name: 'inbound_mail',
  sql: `
CREATE TABLE platform.inbound_mail (
  id text PRIMARY KEY,
  envelope_from text,
  recipients jsonb NOT NULL,
  from_address text NOT NULL,
  from_name text,
  subject text NOT NULL,
  text_body text,
  html_body text,
  message_id text,
  attachments jsonb NOT NULL,
  size integer NOT NULL,
  request_id text NOT NULL,
  function_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);`,
};

/**
 * The deliveries under way that store attachments (`inbound-mail.ts`): one row per attempt,
 * written before its first attachment is stored and naming the file ids it will use and the
 * process that holds it. The row goes in the transaction that records the delivered mail, or
 * after a failed attempt removed its files; a row whose holder is gone (killed, even by SIGKILL)
 * names the files a start removes.
 */
export const inboundAttemptsStep: SchemaChange = {
  name: 'inbound_attempts',
  sql: `
CREATE TABLE platform.inbound_attempts (
  id text PRIMARY KEY,
  holder jsonb NOT NULL,
  file_ids jsonb NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);`,
};
