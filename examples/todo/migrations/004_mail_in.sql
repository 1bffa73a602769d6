-- Mail-in: mail sent to todo+<key>@<app domain> becomes a todo of the key's owner. Each user
-- gets one random key (functions/mail-in-address); the inbound email Function runs as the
-- system, so it reads the keys and creates todos through system policies.
-- The id is the key: 32 random hex digits.
create table mail_in_keys (
  id text primary key default replace(gen_random_uuid()::text, '-', ''),
  owner_id uuid not null unique default auth.uid(),
  created_at timestamptz not null default now()
);
alter table mail_in_keys enable row level security;
create policy mail_in_keys_owner on mail_in_keys for all to authenticated
  using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));
create policy mail_in_keys_system on mail_in_keys for select to platform_system
  using ((select auth.is_system()));
-- The system may create todos (for the owner the key names); reading them back is
-- todos_system's select policy.
create policy todos_system_insert on todos for insert to platform_system
  with check ((select auth.is_system()));
