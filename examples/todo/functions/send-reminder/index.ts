import { defineFunction, errors, s } from '@platform/server';

/**
 * Consumer of the `reminders` queue: emails a reminder about one todo from the `reminders`
 * alias (captured in the outbox in development: `platform outbox`) and sends its owner a push
 * notification on every device they subscribed (the local push service in development; the
 * dashboard shows it).
 */
export default defineFunction({
  input: s.object({ todoId: s.uuid(), to: s.optional(s.string({ minLength: 3 })) }),
  handler: async ({ input, data, email, notifications, log }) => {
    // A system Function: the todos_system policy lets it read any todo.
    const todo = await data.table('todos').getById(input.todoId);
    if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${input.todoId}.`);
    const sent = await email.send({
      from: 'reminders',
      to: input.to ?? 'owner@example.com',
      subject: `Reminder: ${String(todo.title)}`,
      text: `Your todo "${String(todo.title)}" is ${todo.done ? 'done' : 'still open'}.`,
    });
    // Zero devices reached is normal (the owner never subscribed); a push service that is down
    // throws the retryable PUSH_SERVICE_UNAVAILABLE, and the queue tries the job again.
    const { delivered } = await notifications.send({
      to: String(todo.owner_id),
      title: `Reminder: ${String(todo.title)}`,
      body: todo.done ? 'Done already.' : 'Still open.',
      url: '/',
      tag: `todo-${input.todoId}`,
    });
    log.info('reminder sent', { todoId: input.todoId, devices: delivered });
    return { ...sent, delivered };
  },
});
