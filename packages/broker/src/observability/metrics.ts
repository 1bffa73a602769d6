import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** A database pool's connections at one moment. */
export interface PoolUse {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

/**
 * The service's Prometheus metrics in a registry of their own (never prom-client's global one,
 * so two services in one process, as in tests, keep their counts apart): requests and their
 * latency per app, the process's own metrics, and the database pools' use read at each scrape.
 */
/** What the service reads of its deployed apps at each scrape. */
export interface AppGauges {
  /** Function processes running, per app. */
  readonly functionProcesses: ReadonlyMap<string, number>;
  /** Jobs waiting to run (queued or waiting to retry), per app and queue. */
  readonly queueDepth: readonly { app: string; queue: string; jobs: number }[];
  /** Integration event deliveries not yet delivered, per consuming app. */
  readonly deliveriesPending: ReadonlyMap<string, number>;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'app' | 'method' | 'status'>;
  readonly #duration: Histogram<'app'>;
  readonly #pools = new Map<string, () => PoolUse>();
  #apps: (() => Promise<AppGauges>) | undefined;
  /** One reading for the three app gauges of a scrape, which collect one after another. */
  #reading: Promise<AppGauges> | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'platform_' });
    this.#requests = new Counter({
      name: 'platform_http_requests_total',
      help: 'HTTP requests answered, by app (or base, or unknown host), method and status.',
      labelNames: ['app', 'method', 'status'],
      registers: [this.registry],
    });
    this.#duration = new Histogram({
      name: 'platform_http_request_duration_seconds',
      help: 'Time from a request arriving to its response headers, by app.',
      labelNames: ['app'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const pools = this.#pools;
    const apps = () => this.#appGauges();
    new Gauge({
      name: 'platform_function_processes',
      help: 'Function processes running, by deployed app.',
      labelNames: ['app'],
      registers: [this.registry],
      async collect() {
        const read = await apps();
        this.reset();
        for (const [app, count] of read?.functionProcesses ?? []) this.set({ app }, count);
      },
    });
    new Gauge({
      name: 'platform_job_queue_depth',
      help: 'Jobs waiting to run (queued or waiting to retry), by deployed app and queue.',
      labelNames: ['app', 'queue'],
      registers: [this.registry],
      async collect() {
        const read = await apps();
        this.reset();
        for (const { app, queue, jobs } of read?.queueDepth ?? []) this.set({ app, queue }, jobs);
      },
    });
    new Gauge({
      name: 'platform_event_deliveries_pending',
      help: 'Integration event deliveries not delivered yet, by consuming app.',
      labelNames: ['app'],
      registers: [this.registry],
      async collect() {
        const read = await apps();
        this.reset();
        for (const [app, count] of read?.deliveriesPending ?? []) this.set({ app }, count);
      },
    });
    new Gauge({
      name: 'platform_db_pool_connections',
      help: 'Database pool connections by pool and state (total, idle, waiting callers).',
      labelNames: ['pool', 'state'],
      registers: [this.registry],
      collect() {
        for (const [pool, read] of pools) {
          const use = read();
          this.set({ pool, state: 'total' }, use.total);
          this.set({ pool, state: 'idle' }, use.idle);
          this.set({ pool, state: 'waiting' }, use.waiting);
        }
      },
    });
  }

  /** Reports the deployed apps' Function processes, job queues and pending deliveries. */
  trackApps(read: () => Promise<AppGauges>): void {
    this.#apps = read;
  }

  #appGauges(): Promise<AppGauges> | undefined {
    const read = this.#apps;
    if (read === undefined) return undefined;
    this.#reading ??= read().finally(() => {
      setTimeout(() => {
        this.#reading = undefined;
      }, 100);
    });
    return this.#reading;
  }

  /** Counts one answered request. `app` is an app id, `base` or `unknown`: never a raw host. */
  request(app: string, method: string, status: number, seconds: number): void {
    this.#requests.inc({ app, method, status: String(status) });
    this.#duration.observe({ app }, seconds);
  }

  /** Reports a database pool's use under `name` at every scrape. */
  trackPool(name: string, read: () => PoolUse): void {
    this.#pools.set(name, read);
  }
}

/** A running metrics listener. */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` in the Prometheus text format on its own address, apart from the public
 * one, so scrapes never pass the TLS proxy and the metrics are not published with the apps.
 */
export function serveMetrics(
  metrics: ServiceMetrics,
  address: { host: string; port: number },
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('The metrics could not be collected.\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = address.host.includes(':') ? `[${address.host}]` : address.host;
      resolve({
        url: `http://${host}:${port}/metrics`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
