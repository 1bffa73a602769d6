/** A small app for error and watch tests: an echo, a crash, and RLS-protected notes. */
export const fixtureApp: Record<string, string> = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: echo
    entrypoint: functions/echo/index.ts
    access: public
    route:
      path: /echo/:word
  - name: crash
    entrypoint: functions/crash/index.ts
    access: public
  - name: addNote
    entrypoint: functions/add-note/index.ts
    access: user
`,
  'migrations/001_notes.sql': `create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  body text not null check (length(body) <= 10)
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
  'functions/echo/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ text: s.optional(s.string()) }),
  handler: ({ input, http }) => ({ echo: input.text ?? null, word: http?.params.word ?? null }),
});
`,
  'functions/crash/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: () => {
    (globalThis as unknown as { Deno: { exit(code: number): never } }).Deno.exit(3);
  },
});
`,
  'functions/add-note/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ body: s.string(), owner: s.optional(s.string()) }),
  handler: ({ input, data }) =>
    data.table('notes').create({ body: input.body, ...(input.owner ? { owner_id: input.owner } : {}) }),
});
`,
};

/** Polls `check` until it stops throwing, or throws its last error after `ms`. */
export async function eventually<T>(check: () => Promise<T>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
}
