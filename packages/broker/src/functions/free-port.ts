import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that is free right now. A Function's network permission names its
 * exact listening port, so the broker chooses it before spawning instead of letting the host
 * listen on port 0.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('No free port'))));
    });
  });
}
