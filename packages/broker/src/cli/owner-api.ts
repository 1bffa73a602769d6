import { parseArgs } from 'node:util';
import { describeFailure, findDev } from './dev-client.ts';
import { type CliIO, exitCodes } from './io.ts';

/** Arguments shared by `platform access` and `platform token`: `<action> [value] [--app] [--name] [--json]`. */
export function parseOwnerArgs(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      app: { type: 'string', default: '.' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/**
 * Calls the owner API of the `platform dev` serving `appDir` with its dev token; resolves to the
 * JSON answer, or prints why not and resolves to the exit code.
 */
export async function ownerApi(
  io: CliIO,
  command: string,
  appDir: string,
  request: { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: unknown },
): Promise<Record<string, unknown> | number> {
  const dev = await findDev(appDir);
  if (typeof dev === 'string') {
    io.stderr(`platform ${command}: ${dev}`);
    return exitCodes.failed;
  }
  let response: Response;
  try {
    response = await fetch(new URL(request.path, dev.url), {
      method: request.method,
      headers: {
        authorization: `Bearer ${dev.token}`,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? null : JSON.stringify(request.body),
    });
  } catch (error) {
    io.stderr(`platform ${command}: ${await describeFailure(error as Error)}`);
    return exitCodes.failed;
  }
  if (!response.ok) {
    io.stderr(`platform ${command}: ${await describeFailure(response)}`);
    return exitCodes.failed;
  }
  return (await response.json()) as Record<string, unknown>;
}
