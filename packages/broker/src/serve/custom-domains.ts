import { request as httpRequest } from 'node:http';
import { PlatformError } from '@platform/errors';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret } from '../kernel/crypto.ts';

/** Where the service looks for a domain's verification token: `http://<domain><path>`. */
export const DOMAIN_VERIFICATION_PATH = '/.well-known/platform-domain-verification';

/** How long the service waits for a domain's verification answer. */
const VERIFY_TIMEOUT_MS = 5_000;
/** The most of a verification answer the service reads: the token and some whitespace. */
const VERIFY_MAX_BYTES = 1024;
/** How often the table of verified domains is read again (another node may have changed it). */
const REFRESH_MS = 5_000;

/** Where the verification request of `domain` connects: the name itself, on port 80. */
export type DomainFetchTarget = (domain: string) => { host: string; port: number };

const directly: DomainFetchTarget = (domain) => ({ host: domain, port: 80 });

/** One custom domain as the owner API shows it. */
export interface DomainView {
  readonly domain: string;
  readonly appId: string;
  readonly state: 'pending' | 'verified';
  /** The token to serve, as the whole body, at `http://<domain>/.well-known/platform-domain-verification`. */
  readonly token: string;
  readonly verifyUrl: string;
  readonly addedAt: string;
  readonly verifiedAt: string | null;
  /** Why the last verification failed, while pending. */
  readonly lastCheck: string | null;
}

interface DomainRow {
  domain: string;
  app_id: string;
  token: string;
  added_at: Date | string;
  verified_at: Date | string | null;
  last_check: string | null;
}

const toView = (row: DomainRow): DomainView => ({
  domain: row.domain,
  appId: row.app_id,
  state: row.verified_at === null ? 'pending' : 'verified',
  token: row.token,
  verifyUrl: `http://${row.domain}${DOMAIN_VERIFICATION_PATH}`,
  addedAt: new Date(row.added_at).toISOString(),
  verifiedAt: row.verified_at === null ? null : new Date(row.verified_at).toISOString(),
  lastCheck: row.last_check,
});

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * `input` as a custom domain name: lower case, without a trailing dot, two labels or more of
 * letters, digits and inner hyphens, at most 253 characters, no IP address, and neither the base
 * domain nor a name under it (those are the service's own). `INVALID_INPUT` otherwise.
 */
export function domainNameOf(input: unknown, baseDomain: string): string {
  const name = typeof input === 'string' ? input.trim().toLowerCase().replace(/\.$/, '') : '';
  const labels = name.split('.');
  const bad = (why: string) =>
    new PlatformError({
      code: 'INVALID_INPUT',
      message: `"${String(input).slice(0, 100)}" is not a custom domain: ${why}`,
      details: { field: 'domain' },
    });
  if (name.length === 0 || name.length > 253 || labels.length < 2) {
    throw bad('give a host name such as shop.example.com, without scheme, port or path.');
  }
  if (!labels.every((label) => LABEL.test(label))) {
    throw bad('each dot-separated label has letters, digits and inner hyphens, at most 63.');
  }
  if (/^\d+$/.test(labels.at(-1) ?? '')) throw bad('an IP address is not a domain.');
  if (name === baseDomain || name.endsWith(`.${baseDomain}`)) {
    throw bad(`names under ${baseDomain} are the service's own app addresses.`);
  }
  return name;
}

/**
 * The custom domains of the deployed apps, in the central store (docs/production.md, "Custom
 * domains"). A domain is added pending with a random token; verifying fetches
 * `http://<domain>/.well-known/platform-domain-verification` and, when its whole body is the
 * token, marks it verified, from when the app answers on that Host. {@link appFor} answers from
 * a table of the verified ones, read again on every change here and every few seconds.
 */
export class CustomDomains {
  readonly #central: Database;
  readonly #clock: Clock;
  readonly #target: DomainFetchTarget;
  #verified = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: {
    readonly central: Database;
    readonly clock: Clock;
    /**
     * Where verification connects. Only the test harness passes one (its loopback names stand
     * for real domains); no setting or request chooses it. @default the domain, port 80
     */
    readonly fetchTarget?: DomainFetchTarget | undefined;
  }) {
    this.#central = options.central;
    this.#clock = options.clock;
    this.#target = options.fetchTarget ?? directly;
  }

  /** Reads the verified domains, then keeps reading them every few seconds until {@link close}. */
  async start(): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      this.refresh().catch(() => undefined);
    }, REFRESH_MS);
    this.#timer.unref();
  }

  close(): void {
    clearInterval(this.#timer);
  }

  /** Reads the table of verified domains again. */
  async refresh(): Promise<void> {
    const { rows } = await this.#central.query<{ domain: string; app_id: string }>(
      'SELECT domain, app_id FROM platform.custom_domains WHERE verified_at IS NOT NULL',
    );
    this.#verified = new Map(rows.map((row) => [row.domain, row.app_id]));
  }

  /** The app a verified custom domain belongs to, if `host` is one. */
  appFor(host: string): string | undefined {
    return this.#verified.get(host);
  }

  /** The verified custom domains of `appId`, where its central sign-in may hand a browser back. */
  verifiedOf(appId: string): string[] {
    return [...this.#verified].filter(([, owner]) => owner === appId).map(([domain]) => domain);
  }

  /** The app's domains, verified and pending. */
  async list(appId: string): Promise<DomainView[]> {
    const { rows } = await this.#central.query<DomainRow>(
      `SELECT domain, app_id, token, added_at, verified_at, last_check
         FROM platform.custom_domains WHERE app_id = $1 ORDER BY domain`,
      [appId],
    );
    return rows.map(toView);
  }

  /** Adds `domain` to `appId`, pending; `DOMAIN_TAKEN` when any app has it already. */
  async add(appId: string, domain: string, accountId: string): Promise<DomainView> {
    const { rows } = await this.#central.query<DomainRow>(
      `INSERT INTO platform.custom_domains (domain, app_id, token, added_by, added_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (domain) DO NOTHING
       RETURNING domain, app_id, token, added_at, verified_at, last_check`,
      [domain, appId, `platform-domain-${randomSecret(24)}`, accountId, this.#clock.now()],
    );
    const row = rows[0];
    if (row === undefined) {
      throw new PlatformError({
        code: 'DOMAIN_TAKEN',
        message: `${domain} is already a custom domain of an app on this service; its app's owner removes it first.`,
        details: { domain },
      });
    }
    return toView(row);
  }

  /**
   * Fetches the domain's verification answer and marks it verified when it is the token; a
   * domain verified once stays verified (verifying again checks nothing). `DOMAIN_NOT_VERIFIED`
   * with what was found otherwise, the domain still pending.
   */
  async verify(appId: string, domain: string): Promise<DomainView> {
    const found = await this.#one(appId, domain);
    if (found.state === 'verified') return found;
    const answer = await this.#fetchAnswer(domain);
    const ok = answer.status === 200 && answer.body.trim() === found.token;
    const why = ok
      ? null
      : answer.status === 0
        ? `no answer: ${answer.body}`
        : answer.status !== 200
          ? `it answered HTTP ${answer.status}`
          : 'its answer is not the token';
    const { rows } = await this.#central.query<DomainRow>(
      `UPDATE platform.custom_domains
          SET verified_at = CASE WHEN $3 THEN $4::timestamptz ELSE NULL END, last_check = $5
        WHERE app_id = $1 AND domain = $2
        RETURNING domain, app_id, token, added_at, verified_at, last_check`,
      [appId, domain, ok, this.#clock.now(), why],
    );
    await this.refresh();
    if (!ok) {
      throw new PlatformError({
        code: 'DOMAIN_NOT_VERIFIED',
        message: `${domain} is not verified: ${why}. Serve the token as the whole body of ${found.verifyUrl}, then verify again.`,
        details: { domain, verifyUrl: found.verifyUrl },
      });
    }
    return toView(rows[0] as DomainRow);
  }

  /** Removes the domain: the app stops answering on it at once (on this node). */
  async remove(appId: string, domain: string): Promise<void> {
    const { rows } = await this.#central.query(
      'DELETE FROM platform.custom_domains WHERE app_id = $1 AND domain = $2 RETURNING domain',
      [appId, domain],
    );
    if (rows.length === 0) throw this.#unknown(appId, domain);
    await this.refresh();
  }

  async #one(appId: string, domain: string): Promise<DomainView> {
    const found = (await this.list(appId)).find((one) => one.domain === domain);
    if (found === undefined) throw this.#unknown(appId, domain);
    return found;
  }

  #unknown(appId: string, domain: string): PlatformError {
    return new PlatformError({
      code: 'INVALID_INPUT',
      message: `"${appId}" has no custom domain ${domain}; platform domains list names them.`,
      details: { appId, domain },
    });
  }

  /** One GET of the verification path, no redirects followed, at most a KiB read. */
  #fetchAnswer(domain: string): Promise<{ status: number; body: string }> {
    const { host, port } = this.#target(domain);
    return new Promise((resolve) => {
      const request = httpRequest(
        {
          host,
          port,
          path: DOMAIN_VERIFICATION_PATH,
          method: 'GET',
          headers: { host: domain, accept: 'text/plain' },
          timeout: VERIFY_TIMEOUT_MS,
          agent: false,
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
            if (body.length > VERIFY_MAX_BYTES) response.destroy();
          });
          response.on('close', () =>
            resolve({ status: response.statusCode ?? 0, body: body.slice(0, VERIFY_MAX_BYTES) }),
          );
        },
      );
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ status: 0, body: error.code ?? error.message }),
      );
      request.end();
    });
  }
}
