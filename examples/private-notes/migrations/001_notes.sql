-- Each account sees only its own notes; the nightly tidy (a system Function) sees all.
create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  body text not null check (length(body) between 1 and 500),
  created_at timestamptz not null default now()
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
create policy notes_system on notes for all to platform_system
  using (auth.is_system()) with check (auth.is_system());
