import { resolve } from 'node:path';
import { localScope } from '../jobs/job-service.ts';
import { describeFailure, findDev } from './dev-client.ts';
import { type CliIO, exitCodes } from './io.ts';

/** A path template of the broker API with its `:appId` set to the local broker's app. */
export const localAppPath = (path: string, params: Record<string, string> = {}): string =>
  Object.entries({ appId: localScope.appId, ...params }).reduce(
    (filled, [key, value]) => filled.replace(`:${key}`, encodeURIComponent(value)),
    path,
  );

/**
 * Calls the broker API of the `platform dev` serving `appDir` with its dev token (the control
 * plane admits nothing else from the command line) and resolves to its JSON answer;
 * when there is no dev, the broker cannot be reached or it answers an error, prints one line to
 * stderr and resolves to the exit code instead.
 *
 * @example
 * ```ts
 * const body = await callBroker(io, '.', '/v1/apps/local/jobs?limit=10');
 * if (typeof body === 'number') return body;
 * ```
 */
export async function callBroker<T>(
  io: CliIO,
  appDir: string,
  path: string,
  init: RequestInit = {},
): Promise<T | number> {
  const dev = await findDev(resolve(io.cwd, appDir));
  if (typeof dev === 'string') {
    io.stderr(dev);
    return exitCodes.failed;
  }
  let response: Response;
  try {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${dev.token}`);
    response = await fetch(new URL(path, dev.url), { ...init, headers });
  } catch (error) {
    io.stderr(await describeFailure(error as Error));
    return exitCodes.failed;
  }
  if (!response.ok) {
    io.stderr(await describeFailure(response));
    return exitCodes.failed;
  }
  return (await response.json()) as T;
}
