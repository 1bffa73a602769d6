import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ownerApiPaths } from '../http/paths.ts';
import { appPath, brokerFetch, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform mail receive <file.eml> [--to <address>]... [--from <address>] [--app <dir>] [--json]
       platform mail resend <email id> [--to <address>]... [--app <dir>] [--json]

Delivers the message in <file.eml> (RFC 5322, as mail clients save it) to the platform dev that
serves the app, as its SMTP listener would: the inbound email Function (email.inbound.function
of platform.yaml) receives it, and it shows in platform outbox. Refused like SMTP refuses it: an
address that is not the app's, a message over the size limit, a file that is not an email, or a
Function that fails (the message is then not taken). resend delivers a captured (sent) email
of the outbox (its id in platform outbox --json) the same way, at its recipients that are the
app's addresses, else the app's first address. See docs/email.md.

Options:
  --to <address>    An envelope recipient; repeat for several. Default: the app's addresses
                    among the message's To and Cc headers.
  --from <address>  The envelope sender (used when the message has no From address).
  --app <dir>       The app folder (default: the current directory).
  --json            Print the broker's answer as JSON.
  -h, --help        Show this help.`;

/** What the broker answers for a delivered message. */
interface DeliveryAnswer {
  readonly id: string;
  readonly requestId: string;
  readonly function: string;
  readonly to: readonly string[];
  readonly result: unknown;
}

/** `platform mail receive <file.eml>`: a client of the broker API's inbound mail route. */
export const mailCommand = defineCommand({
  name: 'mail',
  summary: 'Deliver an .eml file to the inbound email Function of the running platform dev.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    to: { type: 'string', multiple: true },
    from: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  async run({ values, positionals }, io, usageError) {
    const [action, file] = positionals;
    if (action === 'resend' && file !== undefined) {
      const to = values.to;
      const answer = await callBroker<DeliveryAnswer>(
        io,
        values.app,
        appPath(ownerApiPaths.outboxReceive, { emailId: file }),
        { method: 'POST', json: to && to.length > 0 ? { to } : {}, label: 'mail' },
      );
      if (typeof answer === 'number') return answer;
      printDelivery(io, answer, values.json);
      return exitCodes.ok;
    }
    if (action !== 'receive' || file === undefined) {
      return usageError('expected "receive <file.eml>" or "resend <email id>"');
    }
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await readFile(resolve(io.cwd, file));
    } catch (error) {
      io.stderr(`platform mail: cannot read ${file}: ${(error as Error).message}`);
      return exitCodes.failed;
    }
    const query = new URLSearchParams();
    for (const to of values.to ?? []) query.append('to', to);
    if (values.from !== undefined) query.set('from', values.from);
    const search = query.size > 0 ? `?${query}` : '';
    const response = await brokerFetch(
      io,
      values.app,
      appPath(ownerApiPaths.mailInbound, {}, search),
      {
        bytes,
        label: 'mail',
      },
    );
    if (typeof response === 'number') return response;
    printDelivery(io, (await response.json()) as DeliveryAnswer, values.json);
    return exitCodes.ok;
  },
});

function printDelivery(io: { stdout(line: string): void }, answer: DeliveryAnswer, json: boolean) {
  if (json) {
    io.stdout(JSON.stringify(answer, null, 2));
    return;
  }
  io.stdout(
    `Delivered to ${answer.to.join(', ')}: ${answer.function} took it as ${answer.id} (${answer.requestId}).`,
  );
  if (answer.result !== null) io.stdout(`Result: ${JSON.stringify(answer.result)}`);
}
