import { defineFunction, errors, s } from '@platform/server';

/**
 * Attaches a file (sent as base64) to a todo, replacing the previous attachment's content. A
 * new upload that cannot be linked to the todo is removed again, so no orphan file stays.
 */
export default defineFunction({
  input: s.object({
    todoId: s.uuid(),
    name: s.string({ minLength: 1, maxLength: 200 }),
    contentType: s.string({ minLength: 1, maxLength: 200 }),
    base64: s.string({ maxLength: 700_000 }),
  }),
  handler: async ({ input, data, files, log }) => {
    const todos = data.table('todos');
    const todo = await todos.getById(input.todoId);
    if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${input.todoId}.`);
    const bytes = Uint8Array.from(atob(input.base64), (c) => c.charCodeAt(0));
    const file = { data: bytes, name: input.name, contentType: input.contentType };
    if (typeof todo.attachment_id === 'string') {
      const ref = await files.replace(todo.attachment_id as never, file);
      await todos.updateById(input.todoId, { attachment_name: input.name });
      return files.info(ref);
    }
    const ref = await files.upload(file);
    try {
      await todos.updateById(input.todoId, { attachment_id: ref, attachment_name: input.name });
    } catch (error) {
      await files.remove(ref);
      throw error;
    }
    log.info('file attached', { todoId: input.todoId, size: bytes.byteLength });
    return files.info(ref);
  },
});
