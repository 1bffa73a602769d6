-- Tips shown on the landing page to everyone, signed in or not.
create table tips (
  id integer primary key,
  text text not null
);
alter table tips enable row level security;
create policy tips_read on tips for select using (true);

insert into tips (id, text) values
  (1, 'Attach a file to a todo to keep its notes together.'),
  (2, 'Export your list as CSV: it streams straight from a Function.'),
  (3, 'GET /api/todos is a Function route: try it with curl and a session.');
