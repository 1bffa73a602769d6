/**
 * `@platform/server/host`: the entry the broker bundles with one Function and runs in a Deno
 * subprocess. See docs/runtime-contract.md, section 1.3.
 *
 * @packageDocumentation
 */
import type { PlatformFunction } from '../define-function.ts';
import { createFunctionHost, type FetchHandler, type FunctionHostOptions } from './create-host.ts';

interface DenoServer {
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

interface DenoLike {
  serve(
    options: { hostname: string; port: number; onListen?: (addr: { port: number }) => void },
    handler: FetchHandler,
  ): DenoServer;
  env: { get(name: string): string | undefined };
}

/** The line prefix the host prints to stdout once it listens, followed by `{"port":N}`. */
export const HOST_READY_PREFIX = 'PLATFORM_HOST_READY';

/**
 * Serves `fn` with `Deno.serve` on 127.0.0.1. The port comes from `PLATFORM_HOST_PORT`
 * (default: any free port) and the host token from `PLATFORM_HOST_TOKEN`; once listening it
 * prints `PLATFORM_HOST_READY {"port":N}`. Outside Deno it throws a `TypeError`.
 *
 * @example
 * ```ts
 * // entry.ts, bundled by the broker with the user's Function
 * import fn from './functions/save-todo.ts';
 * import { serveFunction } from '@platform/server/host';
 * serveFunction(fn);
 * ```
 */
export function serveFunction(
  fn: PlatformFunction,
  options: FunctionHostOptions & { port?: number; onListen?: (port: number) => void } = {},
): DenoServer {
  const deno = (globalThis as { Deno?: DenoLike }).Deno;
  if (deno === undefined)
    throw new TypeError('serveFunction runs in Deno; elsewhere use createFunctionHost');
  const port = options.port ?? Number(deno.env.get('PLATFORM_HOST_PORT') ?? 0);
  const hostToken = options.hostToken ?? deno.env.get('PLATFORM_HOST_TOKEN');
  const handler = createFunctionHost(fn, { ...options, hostToken });
  return deno.serve(
    {
      hostname: '127.0.0.1',
      port,
      onListen: ({ port: bound }) => {
        if (options.onListen) options.onListen(bound);
        else console.log(`${HOST_READY_PREFIX} ${JSON.stringify({ port: bound })}`);
      },
    },
    handler,
  );
}

export { createFunctionHost, type FetchHandler, type FunctionHostOptions } from './create-host.ts';
export { type HostOptions, runInvocation } from './run-invocation.ts';
