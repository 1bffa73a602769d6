import { resolve } from 'node:path';
import { errorFromResponse } from '@platform/errors';
import { type DevState, readDevState } from '../project/dev-state.ts';

/** The running `platform dev` of an app folder, or a message saying how to start one. */
export async function findDev(appDir: string): Promise<DevState | string> {
  const state = await readDevState(resolve(appDir));
  return state ?? `No platform dev is running for ${appDir}; start it with: platform dev ${appDir}`;
}

/** A failed broker answer (or an unreachable broker) as one line for the terminal. */
export async function describeFailure(response: Response | Error): Promise<string> {
  if (response instanceof Error) return `The broker could not be reached: ${response.message}`;
  const error = await errorFromResponse(response);
  const details = error.details ? ` ${JSON.stringify(error.details)}` : '';
  return `${error.code} (${response.status}): ${error.message}${details}`;
}
