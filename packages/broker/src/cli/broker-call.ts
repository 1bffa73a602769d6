import { resolve } from 'node:path';
import { fillPath } from '@platform/schema/routes';
import { describeFailure, findDev } from './dev-client.ts';
import { type CliIO, exitCodes } from './io.ts';

/** A broker API path, or one that needs the running app's id (an owner API path). */
export type BrokerPath = string | ((appId: string) => string);

/**
 * A path template of the owner API with its parameters set (encoded), its `:appId` set to the id
 * of the app the running `platform dev` serves (read from its `.platform/dev.json`), and `search`
 * (`?limit=10`, already encoded) after it.
 */
export const appPath =
  (path: string, params: Record<string, string> = {}, search = ''): ((appId: string) => string) =>
  (appId) =>
    `${fillPath(path, { appId, ...params })}${search}`;

/** A request to the broker API; a `json` body is sent as `application/json`. */
export interface BrokerRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly json?: unknown;
  /** Raw bytes to send instead of `json`, as `message/rfc822` unless `contentType` says otherwise. */
  readonly bytes?: Uint8Array<ArrayBuffer>;
  readonly contentType?: string;
  /** Put before error lines (`platform access: ...`). */
  readonly label?: string;
}

/**
 * Sends one request to the broker API of the `platform dev` serving `appDir`, with its dev token
 * (the control plane admits nothing else from the command line). Resolves to the successful
 * response; when there is no dev, the broker cannot be reached or it answers an error, prints
 * one line to stderr and resolves to the exit code instead.
 */
export async function brokerFetch(
  io: CliIO,
  appDir: string,
  path: BrokerPath,
  request: BrokerRequest = {},
): Promise<Response | number> {
  const fail = (line: string) => {
    io.stderr(request.label ? `platform ${request.label}: ${line}` : line);
    return exitCodes.failed;
  };
  const dev = await findDev(resolve(io.cwd, appDir));
  if (typeof dev === 'string') return fail(dev);
  const headers: Record<string, string> = { authorization: `Bearer ${dev.token}` };
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  if (request.bytes !== undefined)
    headers['content-type'] = request.contentType ?? 'message/rfc822';
  const body =
    request.bytes ?? (request.json === undefined ? undefined : JSON.stringify(request.json));
  let response: Response;
  try {
    response = await fetch(new URL(typeof path === 'string' ? path : path(dev.appId), dev.url), {
      method: request.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...(body === undefined ? {} : { body }),
    });
  } catch (error) {
    return fail(await describeFailure(error as Error));
  }
  if (!response.ok) return fail(await describeFailure(response));
  return response;
}

/**
 * Like {@link brokerFetch}, resolving to the JSON answer.
 *
 * @example
 * ```ts
 * const body = await callBroker(io, '.', appPath(jobsApiPaths.list));
 * if (typeof body === 'number') return body;
 * ```
 */
export async function callBroker<T>(
  io: CliIO,
  appDir: string,
  path: BrokerPath,
  request: BrokerRequest = {},
): Promise<T | number> {
  const response = await brokerFetch(io, appDir, path, request);
  return typeof response === 'number' ? response : ((await response.json()) as T);
}
