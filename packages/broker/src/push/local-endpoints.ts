import { LOCAL_PUSH_PREFIX } from '../http/paths.ts';

/**
 * The host names of this machine as WHATWG URL parsing writes them (`2130706433`, `0x7f.0.0.1`
 * and `127.1` all become `127.0.0.1`): where the local push service's endpoints point.
 */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The device id of a local push service endpoint, or `undefined` for any other endpoint. */
export function localDeviceId(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) {
    return undefined;
  }
  const prefix = `${LOCAL_PUSH_PREFIX}/`;
  if (!url.pathname.startsWith(prefix)) return undefined;
  const id = url.pathname.slice(prefix.length);
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : undefined;
}

/**
 * `endpoint` re-pointed at `brokerUrl` when it is a local push service endpoint: `platform dev`
 * may run on another port than when the device subscribed.
 */
export function currentLocalEndpoint(endpoint: string, brokerUrl: string): string {
  const id = localDeviceId(endpoint);
  return id === undefined ? endpoint : new URL(`${LOCAL_PUSH_PREFIX}/${id}`, brokerUrl).href;
}
