/**
 * The host-process protocol: how the broker starts the function host of one Function (a Deno
 * process running the bundle of `@platform/server/host` and the Function) and learns that it
 * listens (docs/runtime-contract.md 1.3). The broker sets the variables and waits for the ready
 * line; the host reads the variables, listens and prints the line. Both read these names from
 * here.
 */

/** The address the host listens on; the broker reaches it there and nowhere else. */
export const HOST_ADDRESS = '127.0.0.1';

/** Environment variable with the port the host listens on (unset or `0`: any free port). */
export const HOST_PORT_ENV = 'PLATFORM_HOST_PORT';

/**
 * Environment variable with the host token: when set, `POST /_platform/invoke` requires
 * `Authorization: Bearer <token>`, so only the broker that started the host can invoke it.
 */
export const HOST_TOKEN_ENV = 'PLATFORM_HOST_TOKEN';

/**
 * The prefix of the line the host prints to stdout once it listens, followed by a space and
 * `{"port":N}`.
 *
 * @example
 * ```ts
 * `${HOST_READY_PREFIX} ${JSON.stringify({ port: 43121 })}`; // 'PLATFORM_HOST_READY {"port":43121}'
 * ```
 */
export const HOST_READY_PREFIX = 'PLATFORM_HOST_READY';
