import { defineFunction, s } from '@platform/server';
import { normaliseTitle } from './title.ts';

/** Creates a todo for the signed-in user (`owner_id` defaults to `auth.uid()` in SQL). */
export default defineFunction({
  input: s.object({
    title: s.string({ minLength: 1, maxLength: 200 }),
    notes: s.optional(s.string({ maxLength: 2000 })),
  }),
  handler: async ({ input, data, log }) => {
    const todo = await data.table('todos').create({
      title: normaliseTitle(input.title),
      notes: input.notes ?? '',
    });
    log.info('todo created', { id: todo.id });
    return todo;
  },
});
