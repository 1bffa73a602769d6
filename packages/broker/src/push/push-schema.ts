import type { SchemaChange } from '../db/platform-schema.ts';

/**
 * The push subscriptions of `PushSubscriptions` (`push-subscriptions.ts`) and the simulated devices
 * and received notifications of the local push service (`local-push-service.ts`), as one step of the platform schema
 * (`app/platform-schema.ts` numbers it). An endpoint belongs to one device, so it is the key: a
 * device that subscribes again (another user signed in on it) moves to that user.
 */
export const pushTablesStep: SchemaChange = {
  name: 'push',
  sql: `
CREATE TABLE platform.push_subscriptions (
  endpoint text PRIMARY KEY,
  app_id text NOT NULL,
  user_id uuid NOT NULL,
  p256dh text NOT NULL,
  auth text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_subscriptions_user ON platform.push_subscriptions (app_id, user_id, created_at);
CREATE TABLE platform.push_local_devices (
  id text PRIMARY KEY,
  user_id uuid,
  private_key text NOT NULL,
  auth text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE platform.push_local_deliveries (
  id text PRIMARY KEY,
  endpoint text NOT NULL,
  user_id uuid,
  payload jsonb NOT NULL,
  ttl_seconds integer NOT NULL,
  urgency text,
  topic text,
  received_at timestamptz NOT NULL DEFAULT now()
);`,
};
