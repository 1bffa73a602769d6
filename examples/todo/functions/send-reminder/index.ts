import { defineFunction, errors, s } from '@platform/server';

/**
 * Consumer of the `reminders` queue: emails a reminder about one todo from the `reminders`
 * alias (captured in the outbox in development: `platform outbox`).
 */
export default defineFunction({
  input: s.object({ todoId: s.uuid(), to: s.optional(s.string({ minLength: 3 })) }),
  handler: async ({ input, data, email, log }) => {
    // A system Function: the todos_system policy lets it read any todo.
    const todo = await data.table('todos').getById(input.todoId);
    if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${input.todoId}.`);
    const sent = await email.send({
      from: 'reminders',
      to: input.to ?? 'owner@example.com',
      subject: `Reminder: ${String(todo.title)}`,
      text: `Your todo "${String(todo.title)}" is ${todo.done ? 'done' : 'still open'}.`,
    });
    log.info('reminder sent', { todoId: input.todoId });
    return sent;
  },
});
