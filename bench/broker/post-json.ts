import { type Agent, request } from 'node:http';

/**
 * POSTs a JSON `body` to `127.0.0.1:<port><path>` and resolves once the whole answer is read;
 * anything but HTTP 200 rejects. Without `agent`, Node's global agent carries the request; with
 * `host`, that is the Host header (a Host-routed service's app address); `headers` are sent too
 * (an `authorization`).
 */
export function postJson(
  port: number,
  path: string,
  body: string,
  agent?: Agent,
  host?: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ...(agent ? { agent } : {}),
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          ...(host ? { host } : {}),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}
