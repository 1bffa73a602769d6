/**
 * An app whose inbound email Function (`inbound`, system) writes each message into `mails`, and
 * throws `HANDLER_BROKE` for the subject `explode`.
 */
export const inboundApp = {
  'migrations/001_mails.sql': `
create table mails (
  id serial primary key, sender text not null, recipients text not null, subject text not null,
  body text, attachment text, message_id text, payload text
);`,
  'functions/inbound.ts': `
import { defineFunction, errors, inboundEmailSchema } from '@platform/server';
export default defineFunction({
  input: inboundEmailSchema,
  handler: async ({ input, data, files }) => {
    if (input.subject === 'explode') throw errors.conflict('HANDLER_BROKE', 'The handler broke on purpose.');
    let attachment = null;
    const first = input.attachments[0];
    if (first) {
      const { data: bytes } = await files.download(first.file);
      attachment = first.name + ':' + first.contentType + ':' + new TextDecoder().decode(bytes);
    }
    const row = await data.table('mails').create({
      sender: input.from, recipients: input.to.join(','), subject: input.subject,
      body: input.text, attachment, message_id: input.messageId, payload: JSON.stringify(input),
    });
    return { row: row.id };
  },
});
`,
};
