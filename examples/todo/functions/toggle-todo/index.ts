import { defineFunction, errors, s } from '@platform/server';

/** Marks a todo done or not done. */
export default defineFunction({
  input: s.object({ id: s.uuid() }),
  handler: async ({ input, data }) => {
    const todos = data.table('todos');
    const todo = await todos.getById(input.id);
    if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${input.id}.`, { id: input.id });
    return todos.updateById(input.id, { done: !todo.done });
  },
});
