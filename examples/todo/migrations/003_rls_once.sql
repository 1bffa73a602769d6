-- The same rules as 001_todos.sql, written so PostgreSQL evaluates auth.uid() and
-- auth.is_system() once per statement (an initplan) instead of once per row: a sub-select
-- (docs/search.md, "Cost and row-level security"). Roles and commands are unchanged.
alter policy todos_owner on todos
  using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));
alter policy todos_system on todos
  using ((select auth.is_system()));
