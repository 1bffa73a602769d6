import { defineFunction, s } from '@platform/server';

const cell = (value: unknown): string => `"${String(value ?? '').replaceAll('"', '""')}"`;

/** The user's todos as CSV, streamed line by line (`platform.functions.stream`). */
export default defineFunction({
  input: s.object({}),
  handler: async ({ data }) => {
    const todos = await data.table('todos').list({ limit: 1000 });
    return (async function* () {
      yield 'title,done,created_at\n';
      for (const todo of todos) {
        yield `${[todo.title, todo.done, todo.created_at].map(cell).join(',')}\n`;
      }
    })();
  },
});
