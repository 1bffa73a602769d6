import { defineFunction, errors, s } from '@platform/server';

/** The attachment of a todo: its metadata and its bytes as base64. */
export default defineFunction({
  input: s.object({ todoId: s.uuid() }),
  handler: async ({ input, data, files }) => {
    const todo = await data.table('todos').getById(input.todoId);
    if (!todo || typeof todo.attachment_id !== 'string') {
      throw errors.notFound('ATTACHMENT_NOT_FOUND', 'This todo has no attachment.');
    }
    const file = await files.download(todo.attachment_id as never);
    let binary = '';
    for (const byte of file.data) binary += String.fromCharCode(byte);
    return {
      name: file.name,
      contentType: file.contentType,
      size: file.size,
      generation: file.generation,
      base64: btoa(binary),
    };
  },
});
