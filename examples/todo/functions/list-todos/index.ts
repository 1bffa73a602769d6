import { defineFunction, s } from '@platform/server';

/** A row of `todos` (migrations/001_todos.sql) as JSON. */
type Todo = {
  id: string;
  owner_id: string;
  title: string;
  notes: string;
  done: boolean;
  attachment_id: string | null;
  attachment_name: string | null;
  created_at: string;
};

/** The signed-in user's todos, oldest first (RLS shows each user only their own rows). */
export default defineFunction({
  input: s.object({ done: s.optional(s.boolean()) }),
  handler: async ({ input, data }) => {
    const todos = await data
      .table<Todo>('todos')
      .list({ limit: 500, ...(input.done === undefined ? {} : { where: { done: input.done } }) });
    todos.sort((a, b) => a.created_at.localeCompare(b.created_at));
    return { todos };
  },
});
