import { defineFunction, s } from '@platform/server';

/** The alias whose subaddresses turn mail into todos (declared in platform.yaml). */
const MAIL_IN_ALIAS = 'todo';

/**
 * The signed-in user's mail-in address, made on first use: mail sent to
 * `todo+<key>@<app domain>` becomes one of their todos (functions/inbound-email). `platform dev`
 * prints the app's mail domain; docs/email.md explains it.
 */
export default defineFunction({
  input: s.object({}),
  handler: async ({ data }) => {
    const keys = data.table('mail_in_keys');
    const [existing] = await keys.list({ limit: 1 });
    const row = existing ?? (await keys.create({}));
    const key = String(row.id);
    return { key, localPart: `${MAIL_IN_ALIAS}+${key}` };
  },
});
