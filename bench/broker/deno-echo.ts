// A reference row of bench/broker/functions.ts, run by Deno: a bare `Deno.serve` echo. Any
// design that runs a Function in a Deno process of its own pays at least this hop on top of
// the broker's own. Prints its port on the first line.

// The bench's tsconfig has Node's types, not Deno's; this is the one call used.
declare const Deno: {
  serve(
    options: { hostname: string; port: number; onListen: (addr: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

Deno.serve(
  { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(port) },
  async (request) => {
    const answer = `{"result":${await request.text()}}`;
    return new Response(answer, { headers: { 'content-type': 'application/json' } });
  },
);
