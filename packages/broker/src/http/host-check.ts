import { errorResponse, PlatformError } from '@platform/errors';
import { newId } from '../kernel/ids.ts';

/**
 * Whether a `Host` header names this broker: a loopback name at the port it serves. The names
 * are `localhost`, any `*.localhost` (RFC 6761 keeps them on this machine; browsers resolve
 * them to loopback without DNS), `127.0.0.1` and `[::1]`, in any letter case. Anything else
 * (another name, another port, no port, no header) is refused, because a page of another site
 * whose name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name here.
 */
export function isOwnHost(host: string | null | undefined, port: number): boolean {
  if (!host) return false;
  const match = /^(\[[^\]]*\]|[^:]+):(\d+)$/.exec(host.trim().toLowerCase());
  if (!match || Number(match[2]) !== port) return false;
  const name = match[1]!.replace(/\.$/, '');
  return (
    name === 'localhost' || name.endsWith('.localhost') || name === '127.0.0.1' || name === '[::1]'
  );
}

/**
 * The answer to a request whose `Host` is not the broker's own ({@link isOwnHost}):
 * `HOST_NOT_ALLOWED` (403) in the error envelope, before any route runs.
 */
export function foreignHostResponse(host: string | null): Response {
  const requestId = newId('request');
  const shown = host === null ? 'no Host header' : `Host ${JSON.stringify(host.slice(0, 100))}`;
  const response = errorResponse(
    new PlatformError({
      code: 'HOST_NOT_ALLOWED',
      message: `This broker answers only to its loopback names (localhost, *.localhost, 127.0.0.1, [::1]) at its own port; the request has ${shown}.`,
    }),
    requestId,
  );
  response.headers.set('x-request-id', requestId);
  return response;
}
