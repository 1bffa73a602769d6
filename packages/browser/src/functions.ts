import { errorFromResponse, isJsonObject, isPlatformError } from '@platform/errors';
import { browserRoutes, fillPath, type RouteSpec } from '@platform/schema/routes';
import { deadline, ensureOk, invalidResponse, type Transport } from './request.ts';
import type { Session } from './session.ts';
import { iterableStream } from './stream.ts';
import type { CallOptions, PlatformFunctions } from './types.ts';

/** Builds `platform.functions` over a transport and the private session. */
export function createFunctions(
  transport: Transport,
  session: Session,
  timeoutMs: number,
): PlatformFunctions {
  // Sends one Function request with the session's token. The SDK does not know a Function's
  // `access`; the broker does. A Function that needs a user answers 401 `AUTH_REQUIRED`; the
  // SDK then asks the session broker once more (the token may have been revoked, or the user
  // signed in elsewhere) and retries once with the new token. It never retries without one,
  // and a failed refresh is thrown rather than sending the call anonymously.
  const open = async (route: RouteSpec, url: string, input: unknown, signal: AbortSignal) => {
    const body = JSON.stringify(input === undefined ? {} : input);
    let { token } = await session.credentials();
    for (let retried = false; ; retried = true) {
      signal.throwIfAborted();
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await transport.fetch(url, {
        method: route.method,
        headers,
        body,
        credentials: 'include',
        signal,
      });
      if (response.ok) return response;
      const error = await errorFromResponse(response);
      if (retried || !isPlatformError(error, 'AUTH_REQUIRED')) throw error;
      const sent = token;
      ({ token } = await session.credentials(true));
      // Retry only with a token, and not with the one the broker just refused.
      if (!token || token === sent) throw error;
    }
  };

  // Misuse by the programmer (no name, no app URL outside a page) is a TypeError, thrown before
  // any request so it is never mistaken for a network failure.
  const urlOf = (route: RouteSpec, name: string) => {
    if (typeof name !== 'string' || !name) throw new TypeError('A Function name is required.');
    return transport.url(fillPath(route.path, { name }));
  };

  return {
    async call(name, input, options?: CallOptions) {
      const route = browserRoutes.functionCall;
      const url = urlOf(route, name);
      const request = deadline(options?.signal, options?.timeoutMs ?? timeoutMs);
      try {
        const response = await ensureOk(await open(route, url, input, request.signal));
        const text = await response.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (error) {
          throw invalidResponse(response.status, error);
        }
        if (!isJsonObject(body)) throw invalidResponse(response.status);
        return body.result as never;
      } catch (error) {
        throw request.fail(error);
      } finally {
        request.clear();
      }
    },

    stream(name, input, options?: CallOptions) {
      const route = browserRoutes.functionStream;
      const url = urlOf(route, name);
      const request = deadline(options?.signal, options?.timeoutMs ?? timeoutMs);
      const opened = open(route, url, input, request.signal).then(
        (response) => {
          // The timeout covers the wait for the stream to start, not its length; the caller's
          // signal keeps working until the stream ends.
          request.clear(true);
          if (!response.body) throw invalidResponse(response.status);
          return response.body.getReader();
        },
        (error: unknown) => {
          request.clear();
          throw request.fail(error);
        },
      );
      return iterableStream(opened, request);
    },
  };
}
