import { basename } from 'node:path';
import { PlatformError } from '@platform/errors';
import { normalizeEmail } from '../kernel/email.ts';

/**
 * The mail domain of an app in development: `<app>.localhost`, where `<app>` is the app folder's
 * name in lower case with every run of other characters than `a-z0-9` made one `-`
 * (`examples/todo` → `todo.localhost`). `.localhost` never leaves the machine (RFC 6761).
 */
export function devMailDomain(appDir: string): string {
  const label =
    basename(appDir)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'app';
  return `${label}.localhost`;
}

/**
 * The addresses an app receives mail at: `<alias>@<domain>` for every alias of
 * `email.aliases`, and their subaddresses `<alias>+<tag>@<domain>` (RFC 5233), which a
 * Function can use to tell senders or threads apart. Case does not matter.
 */
export class InboundAddresses {
  readonly domain: string;
  readonly #aliases: ReadonlySet<string>;

  constructor(domain: string, aliases: readonly string[]) {
    this.domain = domain.toLowerCase();
    this.#aliases = new Set(aliases.map((alias) => alias.toLowerCase()));
  }

  /** Every plain address, `<alias>@<domain>`. */
  list(): string[] {
    return [...this.#aliases].map((alias) => `${alias}@${this.domain}`);
  }

  /** `address` in lower case when it is one of the app's, otherwise `undefined`. */
  match(address: string): string | undefined {
    const lower = normalizeEmail(address);
    const at = lower.lastIndexOf('@');
    if (at <= 0 || lower.slice(at + 1) !== this.domain) return undefined;
    const local = lower.slice(0, at);
    const plus = local.indexOf('+');
    const alias = plus === -1 ? local : local.slice(0, plus);
    return this.#aliases.has(alias) ? lower : undefined;
  }

  /** {@link InboundAddresses.match}, or `EMAIL_RECIPIENT_UNKNOWN` naming the app's addresses. */
  require(address: string): string {
    const matched = this.match(address);
    if (matched !== undefined) return matched;
    const known = this.list();
    throw new PlatformError({
      code: 'EMAIL_RECIPIENT_UNKNOWN',
      message:
        known.length === 0
          ? `${address} is not an address of this app: platform.yaml declares no email.aliases.`
          : `${address} is not an address of this app; it receives mail at ${known.join(', ')}.`,
      details: { recipient: address, addresses: known },
    });
  }
}
