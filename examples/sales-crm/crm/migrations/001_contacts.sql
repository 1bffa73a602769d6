-- The CRM's contacts, and a record of each lookup made through a connection: the connection is
-- what auth.connection_id() reads while an integration operation runs.
create table contacts (
  id uuid primary key default gen_random_uuid(),
  email text not null unique,
  name text not null
);
alter table contacts enable row level security;
create policy contacts_system on contacts for all to platform_system
  using (auth.is_system()) with check (auth.is_system());
insert into contacts (email, name) values
  ('ada@example.com', 'Ada Lovelace'),
  ('grace@example.com', 'Grace Hopper');

create table lookups (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  connection_id text default auth.connection_id(),
  consumer_app_id text,
  at timestamptz not null default now()
);
alter table lookups enable row level security;
create policy lookups_system on lookups for all to platform_system
  using (auth.is_system()) with check (auth.is_system());

-- Webhook deliveries the CRM's upstream sent to a connection's webhook URL, as received.
create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  connection_id text default auth.connection_id(),
  event text not null,
  headers jsonb not null,
  body text not null,
  received_at timestamptz not null
);
alter table webhook_deliveries enable row level security;
create policy webhook_deliveries_system on webhook_deliveries for all to platform_system
  using (auth.is_system()) with check (auth.is_system());
