import { type BlockList, isIP } from 'node:net';

/** `address` as an IPv4 address when it is one mapped into IPv6 (`::ffff:10.0.0.1`). */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return mapped ?? address;
}

function isTrusted(trusted: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client of a request that came from `peer` (the socket's address) with the
 * `X-Forwarded-For` header `forwardedFor`: while the hop in hand is a trusted proxy, the hop
 * it names last in the header (each proxy appends its own peer on the right); the first hop
 * that is not trusted is the client. A client can write anything on the left of the header but
 * not the entry its proxy appends, so nothing it writes is believed. A hop that is no IP
 * address ends the walk at the trusted proxy before it. Without trusted proxies, `peer`.
 */
export function forwardedClient(
  peer: string,
  forwardedFor: string | null,
  trusted: BlockList,
): string {
  let client = plain(peer);
  if (forwardedFor === null) return client;
  const hops = forwardedFor.split(',').map((hop) => plain(hop.trim()));
  while (isTrusted(trusted, client)) {
    const next = hops.pop();
    if (next === undefined || isIP(next) === 0) break;
    client = next;
  }
  return client;
}
