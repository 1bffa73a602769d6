-- Events the CRM delivered to the `crm` slot, once per event id (handlers may see one twice).
create table crm_events (
  id text primary key,
  type text not null,
  email text,
  received_at timestamptz not null default now()
);
alter table crm_events enable row level security;
create policy crm_events_system on crm_events for all to platform_system
  using (auth.is_system()) with check (auth.is_system());
