import { defineFunction, s } from '@platform/server';
import { normaliseTitle } from './title.ts';

/**
 * Creates a todo for the signed-in user (`owner_id` defaults to `auth.uid()` in SQL). With
 * `remindInMinutes`, it also enqueues a job on the `reminders` queue of platform.yaml, whose
 * consumer `sendReminder` mails the reminder then (0: at once). One reminder per todo: the
 * idempotency key is the todo's id.
 */
export default defineFunction({
  input: s.object({
    title: s.string({ minLength: 1, maxLength: 200 }),
    notes: s.optional(s.string({ maxLength: 2000 })),
    remindInMinutes: s.optional(s.number({ integer: true, min: 0, max: 7 * 24 * 60 })),
  }),
  handler: async ({ input, data, jobs, log }) => {
    const todo = await data.table('todos').create({
      title: normaliseTitle(input.title),
      notes: input.notes ?? '',
    });
    log.info('todo created', { id: todo.id });
    if (input.remindInMinutes === undefined) return { ...todo, reminderJobId: null };
    const job = await jobs.enqueue(
      'reminders',
      { todoId: String(todo.id) },
      { idempotencyKey: `reminder-${todo.id}`, delaySeconds: input.remindInMinutes * 60 },
    );
    return { ...todo, reminderJobId: job.id };
  },
});
