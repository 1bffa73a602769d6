import { defineFunction, errors, s } from '@platform/server';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One todo with its attachment's metadata. Reached through the route `GET /api/todos/:id`
 * (the id comes from `http.params`) or called with `{ id }`.
 */
export default defineFunction({
  input: s.object({ id: s.optional(s.string()) }),
  handler: async ({ input, http, data, files }) => {
    const id = input.id ?? http?.params.id ?? '';
    if (!UUID.test(id)) throw errors.badRequest('TODO_ID_INVALID', 'A todo id is a UUID.', { id });
    const todo = await data.table('todos').getById(id);
    if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${id}.`, { id });
    const attachment =
      typeof todo.attachment_id === 'string' ? await files.info(todo.attachment_id) : null;
    return { todo, attachment, query: http?.query ?? {} };
  },
});
