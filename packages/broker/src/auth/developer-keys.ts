import { hmac, randomSecret, safeEqual } from '../kernel/crypto.ts';
import { dashboardLinkKey, readDevState } from '../project/dev-state.ts';
import type { ResolvedAuthOptions } from './auth-options.ts';

/**
 * The developer's keys to the control plane and the owner API: the dev token of the running
 * `platform dev` (the option, else `.platform/dev.json`'s) and {@link brokerKey}, plus the
 * developer cookie the dashboard link trades its key for.
 */
export class DeveloperKeys {
  /** A key of the owner API (grants, tokens), new at every start, besides the dev token. */
  readonly brokerKey = randomSecret();
  readonly #options: ResolvedAuthOptions;
  readonly #cookieKey: string;

  /** `cookieKey` signs the developer cookie; it is kept across restarts. */
  constructor(options: ResolvedAuthOptions, cookieKey: string) {
    this.#options = options;
    this.#cookieKey = cookieKey;
  }

  /** Whether `presented` is the dev token or {@link brokerKey} (compared in constant time). */
  async isDeveloperKey(presented: string): Promise<boolean> {
    const devToken = await this.#devToken();
    return (
      safeEqual(presented, this.brokerKey) ||
      (devToken !== undefined && safeEqual(presented, devToken))
    );
  }

  /** Whether `presented` is the key of the dashboard link `platform dev` printed. */
  async isDashboardLinkKey(presented: string): Promise<boolean> {
    const devToken = await this.#devToken();
    return devToken !== undefined && safeEqual(presented, dashboardLinkKey(devToken));
  }

  /**
   * The value of the developer cookie: an HMAC of the current dev token, so the token itself
   * never sits in a cookie and a new `platform dev` start (a new token) invalidates it.
   * `undefined` without a dev token.
   */
  async cookieValue(): Promise<string | undefined> {
    const devToken = await this.#devToken();
    if (devToken === undefined) return undefined;
    return hmac(this.#cookieKey, `platform_dev:${devToken}`);
  }

  async #devToken(): Promise<string | undefined> {
    return this.#options.devToken ?? (await readDevState(this.#options.appDir))?.token;
  }
}
