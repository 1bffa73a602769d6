import { defineFunction, inboundEmailSchema } from '@platform/server';

// The mail-in address of functions/mail-in-address: the `todo` alias with the user's key.
const KEY = /^todo\+([0-9a-f]{32})@/;

/**
 * Receives mail sent to the app (`email.inbound.function`): a message to a user's mail-in
 * address `todo+<key>@…` becomes a todo of that user, titled by the subject, with the text as
 * its notes and the first attachment attached. The Function owns the attachment files it is
 * given, so it removes those it does not keep. Mail without a known key is accepted and
 * dropped (refusing it would only make the sender retry).
 */
export default defineFunction({
  input: inboundEmailSchema,
  handler: async ({ input, data, files, log }) => {
    const [first, ...rest] = input.attachments;
    const drop = async (keep: boolean) => {
      for (const attachment of keep ? rest : input.attachments) await files.remove(attachment.file);
    };
    const key = input.to.map((address) => KEY.exec(address)?.[1]).find((k) => k !== undefined);
    const owner = key ? await data.table('mail_in_keys').getById(key) : null;
    if (!owner) {
      log.warn('mail without a known mail-in key dropped', { to: input.to, id: input.id });
      await drop(false);
      return { todo: null };
    }
    const title = input.subject.trim().replace(/\s+/g, ' ').slice(0, 200) || '(no subject)';
    const todo = await data.table('todos').create({
      owner_id: String(owner.owner_id),
      title,
      notes: (input.text ?? '').trim().slice(0, 2000),
      ...(first ? { attachment_id: first.file, attachment_name: first.name } : {}),
    });
    await drop(true);
    log.info('todo created from mail', { id: todo.id, attachments: input.attachments.length });
    return { todo: todo.id };
  },
});
