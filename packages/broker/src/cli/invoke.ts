import { parseArgs } from 'node:util';
import { fillPath } from '@platform/schema/routes';
import { INVOKE_PATH } from '../dev/broker-api.ts';
import { describeFailure, findDev } from './dev-client.ts';
import { type CliIO, type Command, exitCodes } from './io.ts';

const usage = `Usage: platform invoke <name> [json] [--app <dir>] [--user <uuid>]

Runs Function <name> once with the JSON input [json] (default {}) on the platform dev that
serves the app, and prints its result (or its streamed text). System Functions run with the
system identity; others run as --user, or anonymously without it.

Options:
  --app <dir>     The app folder (default: the current directory).
  --user <uuid>   Run as this user (for access: user Functions).
  -h, --help      Show this help.`;

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      app: { type: 'string', default: '.' },
      user: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/** `platform invoke <name> [json]`: a direct invocation through the running broker. */
export const invokeCommand: Command = {
  summary: 'Run a Function once on the running platform dev and print its result.',
  usage,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      io.stderr(`platform invoke: ${(error as Error).message}\n\n${usage}`);
      return exitCodes.usage;
    }
    if (parsed.values.help) {
      io.stdout(usage);
      return exitCodes.ok;
    }
    const [name, json, ...extra] = parsed.positionals;
    if (name === undefined || extra.length > 0) {
      io.stderr(`platform invoke: expected a Function name and at most one JSON input\n\n${usage}`);
      return exitCodes.usage;
    }
    let input: unknown = {};
    if (json !== undefined) {
      try {
        input = JSON.parse(json);
      } catch {
        io.stderr(`platform invoke: the input is not valid JSON: ${json}`);
        return exitCodes.usage;
      }
    }
    const dev = await findDev(parsed.values.app);
    if (typeof dev === 'string') {
      io.stderr(dev);
      return exitCodes.failed;
    }
    let response: Response;
    try {
      response = await fetch(new URL(fillPath(INVOKE_PATH, { name }), dev.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${dev.token}` },
        body: JSON.stringify({
          input,
          ...(parsed.values.user ? { user: parsed.values.user } : {}),
        }),
      });
    } catch (error) {
      io.stderr(await describeFailure(error as Error));
      return exitCodes.failed;
    }
    if (!response.ok) {
      io.stderr(await describeFailure(response));
      return exitCodes.failed;
    }
    if (response.headers.get('x-platform-stream') === '1') {
      io.stdout(await response.text());
      return exitCodes.ok;
    }
    const { result } = (await response.json()) as { result: unknown };
    io.stdout(JSON.stringify(result, null, 2));
    return exitCodes.ok;
  },
};
