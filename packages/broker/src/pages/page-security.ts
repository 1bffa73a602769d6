import { randomSecret } from '../kernel/crypto.ts';

/** A fresh Content Security Policy nonce: one per response, never reused. */
export const pageNonce = (): string => randomSecret(12);

/** What a page's Content Security Policy allows beyond the kit's fixed rules. */
export interface PagePolicy {
  /** The nonce every `<script>` and `<style>` element of the page carries. */
  readonly nonce: string;
  /**
   * Whether the page has forms. Without, `form-action` is `'none'`: nothing the page shows can
   * post anywhere.
   * @default true
   */
  readonly forms?: boolean;
  /**
   * Origins besides this one that the page's forms may lead to (the CSP `form-action`, which
   * browsers also apply to the redirect that answers a post), such as an OAuth provider's.
   * @default none
   */
  readonly formTargets?: readonly string[];
}

/**
 * The Content Security Policy of every broker page: nothing loads unless named, scripts and
 * styles only with the response's nonce (inline or a same-origin file), `fetch` to this origin
 * only, no framing, no `<base>`, forms to this origin (and the named targets) or nowhere.
 */
export function contentSecurityPolicy(policy: PagePolicy): string {
  const { nonce } = policy;
  const formAction =
    policy.forms === false ? "'none'" : ["'self'", ...(policy.formTargets ?? [])].join(' ');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * The headers every HTML page of the broker sends, whichever feature renders it: the policy of
 * {@link contentSecurityPolicy}, `no-store` (pages show sessions, tokens and personal rows),
 * no framing in browsers that predate `frame-ancestors`, no content sniffing, and `same-origin`
 * referrers: a link token or dashboard key in the address never reaches another site, while a
 * page's own form posts still carry the `Origin` the CSRF check reads (under `no-referrer`
 * browsers send `Origin: null` on them).
 */
export function pageSecurityHeaders(policy: PagePolicy): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'content-security-policy': contentSecurityPolicy(policy),
  };
}
