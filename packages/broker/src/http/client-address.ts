/**
 * Where a front server that knows better than the socket puts the client's address on the Node
 * server's `env` of a request: `platform serve` behind a trusted proxy, whose peer is the proxy.
 * A symbol, so no header or other key of the env can stand for it.
 */
const CLIENT_ADDRESS = Symbol('platform.clientAddress');

/** The shape of the Node server's `env` that this file reads and writes. */
type NodeEnv = {
  incoming?: { socket?: { remoteAddress?: string } };
  [CLIENT_ADDRESS]?: string;
};

/**
 * Records `address` as the client of the request whose Node server `env` this is; the broker's
 * per-client limits then count it instead of the socket's peer. The env object itself is
 * changed (not copied): the WebSocket upgrade keeps state on it.
 */
export function setClientAddress(env: unknown, address: string): void {
  if (typeof env === 'object' && env !== null) (env as NodeEnv)[CLIENT_ADDRESS] = address;
}

/**
 * The client's address of a request by its Node server `env`: the one a front server recorded
 * ({@link setClientAddress}), else the socket's peer; `undefined` for an in-process request.
 */
export function clientAddressOf(env: unknown): string | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const node = env as NodeEnv;
  return node[CLIENT_ADDRESS] ?? node.incoming?.socket?.remoteAddress;
}
