import { defineFunction, s } from '@platform/server';

/** The signed-in user's todos, oldest first (RLS shows each user only their own rows). */
export default defineFunction({
  input: s.object({ done: s.optional(s.boolean()) }),
  handler: async ({ input, data }) => {
    const todos = await data
      .table('todos')
      .list({ limit: 500, ...(input.done === undefined ? {} : { where: { done: input.done } }) });
    todos.sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
    return { todos };
  },
});
