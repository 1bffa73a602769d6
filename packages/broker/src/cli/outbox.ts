import { ownerApiPaths } from '../http/paths.ts';
import { printable } from '../logs/printable.ts';
import type { MailLogEntry } from '../outbox/mail-log.ts';
import { appPath, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform outbox [--app <dir>] [--limit <n>] [--json]

Lists the email of the platform dev that serves the app, newest first: what its Functions sent
(OUT: captured, never delivered) and what it received (IN: taken by the inbound email
Function), side by side.

Options:
  --app <dir>     The app folder (default: the current directory).
  --limit <n>     How many (1 to 500, default 20).
  --json          Print { emails: [...] } as JSON.
  -h, --help      Show this help.`;

// Every field may hold what a Function or an outside sender chose (a received subject may decode
// to line breaks and escape sequences): each printed line is made printable.
function show(email: MailLogEntry): string[] {
  const direction = email.direction === 'inbound' ? 'IN ' : 'OUT';
  const lines = [
    `${email.createdAt}  ${direction}  ${email.from} -> ${email.to.join(', ')}  "${email.subject}"`,
    `  ${email.functionName ?? '?'} ${email.requestId ?? ''}`.trimEnd(),
  ];
  if (email.direction === 'inbound') {
    for (const a of email.attachments) {
      lines.push(`  attachment: ${a.name} (${a.contentType}, ${a.size} bytes)`);
    }
  }
  const body = email.text ?? email.html ?? '';
  for (const line of body.split('\n').slice(0, 20)) lines.push(`  | ${line}`);
  return lines.map(printable);
}

/** `platform outbox`: a client of the broker API's captured email. */
export const outboxCommand = defineCommand({
  name: 'outbox',
  summary: 'List the email captured by the running platform dev.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    limit: { type: 'string', default: '20' },
    json: { type: 'boolean', default: false },
  },
  async run(parsed, io, usageError) {
    if (!/^\d+$/.test(parsed.values.limit)) return usageError('--limit must be a number');
    const body = await callBroker<{ emails: MailLogEntry[] }>(
      io,
      parsed.values.app,
      appPath(ownerApiPaths.outbox, {}, `?limit=${parsed.values.limit}`),
    );
    if (typeof body === 'number') return body;
    if (parsed.values.json) io.stdout(JSON.stringify(body, null, 2));
    else if (body.emails.length === 0) io.stdout('The outbox is empty.');
    else for (const email of body.emails) for (const line of show(email)) io.stdout(line);
    return exitCodes.ok;
  },
});
