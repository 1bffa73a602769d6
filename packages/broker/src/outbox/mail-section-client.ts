// The dashboard's Email section, in the browser.
import {
  actionCell,
  confirmed,
  fill,
  get,
  localTime,
  row,
  type SectionScript,
  send,
} from '../pages/dashboard/dashboard-client-kit.ts';
import type { MailLogEntry } from './mail-log.ts';

type Api = Readonly<Record<'mail' | 'receive', string>>;

// Deliver to inbound on a sent email; it asks first, then reloads the list.
function receiveCell(api: Api, e: MailLogEntry): HTMLTableCellElement {
  if (e.direction === 'inbound') return document.createElement('td');
  return actionCell(
    'Deliver to inbound',
    async () => {
      if (!confirmed(`Deliver "${e.subject}" to the inbound email Function?`)) return;
      await send('POST', api.receive.replace(':emailId', encodeURIComponent(e.id)), {});
      await loadMail(api);
    },
    `Deliver to inbound: ${e.id}`,
  );
}

async function loadMail(api: Api): Promise<void> {
  const { emails } = await get<{ emails: MailLogEntry[] }>(api.mail, {});
  fill(
    'mail',
    emails.map((e) => {
      const tr = row(
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
      );
      tr.append(receiveCell(api, e));
      return tr;
    }),
    'No email sent or received yet.',
    8,
  );
}

export default { open: loadMail, refresh: loadMail } satisfies SectionScript<'mail' | 'receive'>;
