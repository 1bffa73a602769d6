import { STREAM_HEADER } from '@platform/schema/contract';
import { ownerApiPaths } from '../http/paths.ts';
import { appPath, brokerFetch } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform invoke <name> [json] [--app <dir>] [--user <uuid>]

Runs Function <name> once with the JSON input [json] (default {}) on the platform dev that
serves the app, and prints its result (or its streamed text). System Functions run with the
system identity; others run as --user, or anonymously without it.

Options:
  --app <dir>     The app folder (default: the current directory).
  --user <uuid>   Run as this user (for access: user Functions).
  -h, --help      Show this help.`;

/** `platform invoke <name> [json]`: a direct invocation through the running broker. */
export const invokeCommand = defineCommand({
  name: 'invoke',
  summary: 'Run a Function once on the running platform dev and print its result.',
  usage,
  options: { app: { type: 'string', default: '.' }, user: { type: 'string' } },
  maxPositionals: 2,
  async run(parsed, io, usageError) {
    const [name, json] = parsed.positionals;
    if (name === undefined)
      return usageError('expected a Function name and at most one JSON input');
    let input: unknown = {};
    if (json !== undefined) {
      try {
        input = JSON.parse(json);
      } catch {
        return usageError(`the input is not valid JSON: ${json}`);
      }
    }
    const user = parsed.values.user;
    const response = await brokerFetch(
      io,
      parsed.values.app,
      appPath(ownerApiPaths.invoke, { name }),
      {
        json: { input, ...(user ? { user } : {}) },
      },
    );
    if (typeof response === 'number') return response;
    if (response.headers.get(STREAM_HEADER) === '1') {
      io.stdout(await response.text());
      return exitCodes.ok;
    }
    const { result } = (await response.json()) as { result: unknown };
    io.stdout(JSON.stringify(result, null, 2));
    return exitCodes.ok;
  },
});
