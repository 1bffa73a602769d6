-- The todo list: every row belongs to the user who created it (auth.uid()).
create table todos (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  title text not null check (length(title) between 1 and 200),
  notes text not null default '',
  done boolean not null default false,
  attachment_id text,
  attachment_name text,
  created_at timestamptz not null default now()
);
create index todos_owner_created on todos (owner_id, created_at);

alter table todos enable row level security;
-- Signed-in users see and change only their own todos.
create policy todos_owner on todos for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
-- System Functions (the reminder queue, the daily digest) read every todo.
create policy todos_system on todos for select to platform_system
  using (auth.is_system());
