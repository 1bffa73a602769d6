// The dashboard's Email section, in the browser.
import {
  fill,
  get,
  localTime,
  row,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { MailLogEntry } from './mail-log.ts';

async function loadMail(api: { readonly mail: string }): Promise<void> {
  const { emails } = await get<{ emails: MailLogEntry[] }>(api.mail, {});
  fill(
    'mail',
    emails.map((e) =>
      row(
        [
          localTime(e.createdAt),
          e.direction === 'inbound' ? 'received' : 'sent',
          e.from,
          e.to.join(', '),
          e.subject,
          e.functionName ?? '',
          e.direction === 'inbound'
            ? e.attachments.map((a) => `${a.name} (${a.size} bytes)`).join(', ')
            : '',
        ],
        { 1: `mail-${e.direction}` },
      ),
    ),
    'No email sent or received yet.',
    7,
  );
}

export default { open: loadMail, refresh: loadMail } satisfies SectionScript<'mail'>;
