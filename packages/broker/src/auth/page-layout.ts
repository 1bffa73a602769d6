import { randomSecret } from '../kernel/crypto.ts';
import { escapeHtml } from '../kernel/escape-html.ts';

/** A page of the sign-in service: a title, its HTML body and an optional inline script. */
export interface AuthPage {
  readonly title: string;
  /** Trusted HTML: every interpolated value must go through {@link escapeHtml}. */
  readonly body: string;
  readonly script?: string;
  /**
   * Origins besides this one that the page's form may lead to (the CSP `form-action`, which
   * browsers also apply to the redirect that answers a post), such as an OAuth provider's.
   */
  readonly formTargets?: readonly string[];
}

const style = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1b1b1f}
h1{font-size:1.4rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a4161a}.muted{color:#555;font-size:.9rem}`;

/**
 * Renders a page as a response with headers that keep it safe: a nonce-based Content Security
 * Policy (no other script, no framing, forms post only to this origin), `same-origin` referrers
 * (a link token in the address never leaks to another site; `no-referrer` would make browsers
 * send `Origin: null` on the form posts the CSRF check reads), and `no-store`.
 */
export function pageResponse(
  page: AuthPage,
  init: { status?: number; headers?: HeadersInit; setCookies?: readonly string[] } = {},
): Response {
  const nonce = randomSecret(12);
  const script =
    page.script === undefined ? '' : `<script nonce="${nonce}">${page.script}</script>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(page.title)}</title>
<style nonce="${nonce}">${style}</style></head><body>${page.body}${script}</body></html>`;
  const headers = new Headers(init.headers);
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('cache-control', 'no-store');
  headers.set('referrer-policy', 'same-origin');
  headers.set('x-frame-options', 'DENY');
  headers.set('x-content-type-options', 'nosniff');
  headers.set(
    'content-security-policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action ${["'self'", ...(page.formTargets ?? [])].join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
  );
  for (const cookie of init.setCookies ?? []) headers.append('set-cookie', cookie);
  return new Response(html, { status: init.status ?? 200, headers });
}

/** A hidden form field. */
export const hidden = (name: string, value: string): string =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
