import { parseArgs } from 'node:util';
import { OUTBOX_PATH } from '../http/routes/outbox-routes.ts';
import type { CapturedEmail } from '../outbox/outbox.ts';
import { describeFailure, findDev } from './dev-client.ts';
import { type CliIO, type Command, exitCodes } from './io.ts';

const usage = `Usage: platform outbox [--app <dir>] [--limit <n>] [--json]

Lists the email the app's Functions sent while in development (captured, never delivered),
newest first, from the platform dev that serves the app.

Options:
  --app <dir>     The app folder (default: the current directory).
  --limit <n>     How many (1 to 500, default 20).
  --json          Print { emails: [...] } as JSON.
  -h, --help      Show this help.`;

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: false,
    strict: true,
    options: {
      app: { type: 'string', default: '.' },
      limit: { type: 'string', default: '20' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

function show(email: CapturedEmail): string[] {
  const lines = [
    `${email.createdAt}  ${email.from} -> ${email.to.join(', ')}  "${email.subject}"`,
    `  ${email.functionName ?? '?'} ${email.requestId ?? ''}`.trimEnd(),
  ];
  const body = email.text ?? email.html ?? '';
  for (const line of body.split('\n').slice(0, 20)) lines.push(`  | ${line}`);
  return lines;
}

/** `platform outbox`: a client of the broker API's captured email. */
export const outboxCommand: Command = {
  summary: 'List the email captured by the running platform dev.',
  usage,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      io.stderr(`platform outbox: ${(error as Error).message}\n\n${usage}`);
      return exitCodes.usage;
    }
    if (parsed.values.help) {
      io.stdout(usage);
      return exitCodes.ok;
    }
    if (!/^\d+$/.test(parsed.values.limit)) {
      io.stderr(`platform outbox: --limit must be a number\n\n${usage}`);
      return exitCodes.usage;
    }
    const dev = await findDev(parsed.values.app);
    if (typeof dev === 'string') {
      io.stderr(dev);
      return exitCodes.failed;
    }
    let response: Response;
    try {
      response = await fetch(new URL(`${OUTBOX_PATH}?limit=${parsed.values.limit}`, dev.url), {
        headers: { authorization: `Bearer ${dev.token}` },
      });
    } catch (error) {
      io.stderr(await describeFailure(error as Error));
      return exitCodes.failed;
    }
    if (!response.ok) {
      io.stderr(await describeFailure(response));
      return exitCodes.failed;
    }
    const body = (await response.json()) as { emails: CapturedEmail[] };
    if (parsed.values.json) io.stdout(JSON.stringify(body, null, 2));
    else if (body.emails.length === 0) io.stdout('The outbox is empty.');
    else for (const email of body.emails) for (const line of show(email)) io.stdout(line);
    return exitCodes.ok;
  },
};
