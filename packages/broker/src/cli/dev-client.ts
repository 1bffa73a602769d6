import { resolve } from 'node:path';
import { errorFromResponse } from '@platform/errors';
import { type DevState, devStatePath, inspectDevState } from '../project/dev-state.ts';

/**
 * The running `platform dev` of an app folder, or a message for the terminal: none runs (how to
 * start one), its `.platform/dev.json` is unreadable (why), or the file names a URL off this
 * machine's loopback. The dev token is a developer's power over the app, so a command sends it
 * only to a loopback URL, whatever the file says.
 */
export async function findDev(appDir: string): Promise<DevState | string> {
  const dir = resolve(appDir);
  const reading = await inspectDevState(dir);
  const file = devStatePath(dir);
  if (reading.status === 'absent') {
    return `No platform dev is running for ${appDir}; start it with: platform dev ${appDir}`;
  }
  if (reading.status === 'unreadable') {
    return `${file} is unreadable: ${reading.problem}. Restart platform dev for ${appDir} to write it again.`;
  }
  if (!isLoopbackUrl(reading.state.url)) {
    return `${file} names ${reading.state.url}, which is not on this machine's loopback; the dev token is sent only to localhost. Restart platform dev for ${appDir} to write it again.`;
  }
  return reading.state;
}

/** Whether `url` is http(s) on a loopback host: `localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  const host = parsed.hostname;
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A failed broker answer (or an unreachable broker) as one line for the terminal. */
export async function describeFailure(response: Response | Error): Promise<string> {
  if (response instanceof Error) return `The broker could not be reached: ${response.message}`;
  const error = await errorFromResponse(response);
  const details = error.details ? ` ${JSON.stringify(error.details)}` : '';
  return `${error.code} (${response.status}): ${error.message}${details}`;
}
