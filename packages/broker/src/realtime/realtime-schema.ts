import type { SchemaChange } from '../db/platform-schema.ts';

/** The channel every broker on the database listens to; a notification's payload is an id. */
export const REALTIME_NOTIFY_CHANNEL = 'platform_realtime';

/**
 * Realtime's tables, as one step of the platform schema (`app/platform-schema.ts` numbers it):
 *
 * - `realtime_messages`: every broadcast, presence change and captured row change, under an id
 *   that orders a channel's messages (its sequence numbers) and that the `NOTIFY` carries, so a
 *   payload never meets `NOTIFY`'s 8,000-byte limit and every broker reads the same row;
 * - `realtime_presence`: who is present on which channel, through which broker, kept fresh by
 *   that broker, so a broker that stopped leaves nobody present for long;
 * - `realtime_capture()`: the trigger function the broker puts on each table of
 *   `realtime.tables`. It records the operation, the row's id and the old row (what the
 *   subscriber's visibility before the change is judged on); the new row is read by each
 *   subscriber under its own RLS, never sent from here. `SECURITY DEFINER`, as the writer of the
 *   app's table (a user) may not write platform tables.
 */
export const realtimeTablesStep: SchemaChange = {
  name: 'realtime',
  sql: `
CREATE TABLE platform.realtime_messages (
  id bigserial PRIMARY KEY,
  channel text NOT NULL,
  kind text NOT NULL,
  body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX realtime_messages_channel ON platform.realtime_messages (channel, id);
CREATE INDEX realtime_messages_created ON platform.realtime_messages (created_at);
CREATE TABLE platform.realtime_presence (
  key text PRIMARY KEY,
  channel text NOT NULL,
  broker_id text NOT NULL,
  user_id uuid,
  state jsonb NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX realtime_presence_channel ON platform.realtime_presence (channel);
CREATE INDEX realtime_presence_broker ON platform.realtime_presence (broker_id);
CREATE FUNCTION platform.realtime_capture() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, platform AS $fn$
DECLARE
  message_id bigint;
  row_id text;
BEGIN
  row_id := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ->> 'id' ELSE to_jsonb(NEW) ->> 'id' END;
  INSERT INTO platform.realtime_messages (channel, kind, body)
  VALUES (
    'table:' || TG_TABLE_NAME,
    'change',
    jsonb_build_object(
      'op', lower(TG_OP),
      'id', row_id,
      'old', CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END
    )
  )
  RETURNING id INTO message_id;
  PERFORM pg_notify('${REALTIME_NOTIFY_CHANNEL}', message_id::text);
  RETURN NULL;
END
$fn$;
REVOKE ALL ON FUNCTION platform.realtime_capture() FROM PUBLIC;`,
};
