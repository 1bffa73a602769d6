/** How a test's balancer judges its nodes; the rest of the configuration is the same for all. */
export interface BalancerChecks {
  /** The most connections HAProxy accepts at once. */
  readonly maxconn: number;
  /** How long a readyz check may take before it counts as failed, e.g. `2s`. */
  readonly checkTimeout: string;
  /** How many failed checks in a row take a node out. */
  readonly fall: number;
}

/**
 * HAProxy's configuration for `nodes` (their ports on loopback) behind `port`, as
 * docs/scaling.md describes it: round robin, a readyz check every second, GET and HEAD retried
 * on another node after a refused connection or one closed without an answer (other methods are
 * never replayed: the node may have acted on them), and every request logged to stderr naming
 * its node, `n<index>`.
 */
export function haproxyConfig(
  port: number,
  nodes: readonly number[],
  checks: BalancerChecks,
): string {
  return `global
  maxconn ${checks.maxconn}
  log stderr format raw local0
defaults
  mode http
  log global
  option httplog
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout check ${checks.checkTimeout}
  retries 3
  option redispatch 1
frontend lb
  bind 127.0.0.1:${port}
  default_backend nodes
backend nodes
  balance roundrobin
  retry-on conn-failure empty-response
  http-request disable-l7-retry unless METH_GET || METH_HEAD
  option httpchk
  http-check send meth GET uri /_platform/readyz ver HTTP/1.1 hdr Host localhost
  default-server inter 1s fall ${checks.fall} rise 2
${nodes.map((node, index) => `  server n${index} 127.0.0.1:${node} check`).join('\n')}
`;
}
