import { defineFunction, s } from '@platform/server';

/** A hit's record: exactly the `select` columns of the `todos` search in platform.yaml. */
type TodoRecord = { id: string; title: string; notes: string; done: boolean; created_at: string };

/**
 * Full-text search over the signed-in user's todos (title and notes, English stemming), best
 * match first. RLS applies to search as to every read: a user only ever finds their own todos.
 * `done` filters (`null` means IS NULL). The query's length and `limit` are left to
 * `data.search`, so a bad value fails with its `SEARCH_INPUT_INVALID` rather than a second rule.
 */
export default defineFunction({
  input: s.object({
    query: s.string(),
    done: s.optional(s.nullable(s.boolean())),
    limit: s.optional(s.number({ integer: true })),
  }),
  handler: async ({ input, data }) => {
    const { query, done, limit } = input;
    const { hits } = await data.search<TodoRecord>('todos', {
      mode: 'fullText',
      query,
      ...(done === undefined ? {} : { where: { done } }),
      ...(limit === undefined ? {} : { limit }),
    });
    return { hits };
  },
});
