// The floor of bench/broker/functions.ts: a bare `node:http` server on loopback that reads the
// JSON body and answers `{ result }` with it, in a process of its own like the broker. Prints
// its port on the first line.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer(async (request, response) => {
  let text = '';
  for await (const chunk of request) text += chunk;
  const answer = `{"result":${text}}`;
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(answer),
  });
  response.end(answer);
});
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port));
