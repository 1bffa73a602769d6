/**
 * `@platform/server/host`: the entry the broker bundles with one Function and runs in a Deno
 * subprocess. See docs/runtime-contract.md, section 1.3.
 *
 * @packageDocumentation
 */
import {
  HOST_ADDRESS,
  HOST_PORT_ENV,
  HOST_READY_PREFIX,
  HOST_TOKEN_ENV,
} from '@platform/schema/contract';
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
  const port = options.port ?? Number(deno.env.get(HOST_PORT_ENV) ?? 0);
  const hostToken = options.hostToken ?? deno.env.get(HOST_TOKEN_ENV);
  const handler = createFunctionHost(fn, { ...options, hostToken });
  return deno.serve(
    {
      hostname: HOST_ADDRESS,
      port,
      onListen: ({ port: bound }) => {
        if (options.onListen) options.onListen(bound);
        else console.log(`${HOST_READY_PREFIX} ${JSON.stringify({ port: bound })}`);
      },
    },
    handler,
  );
}

export { HOST_READY_PREFIX } from '@platform/schema/contract';
export { createFunctionHost, type FetchHandler, type FunctionHostOptions } from './create-host.ts';
export { type HostOptions, runInvocation } from './run-invocation.ts';
