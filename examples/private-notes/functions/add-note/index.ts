import { defineFunction, s } from '@platform/server';

/** Saves a note as the signed-in user and returns who they are and their notes (RLS: only theirs). */
export default defineFunction({
  input: s.object({ note: s.string() }),
  handler: async ({ input, data, user }) => {
    await data.table('notes').create({ body: input.note });
    const rows = await data.table('notes').list({ select: ['body', 'created_at'] });
    rows.sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
    return { user, notes: rows.map((row) => row.body) };
  },
});
