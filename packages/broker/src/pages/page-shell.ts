import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { pageNonce, pageSecurityHeaders } from './page-security.ts';

/**
 * Hono's `html` template, answered at once: every interpolated value is escaped for element
 * content and quoted attributes, except markup made by `markup` itself (or `raw`, for what the
 * broker wrote). A promise among the values is a mistake of the page's code, not a value.
 *
 * @example
 * ```ts
 * markup`<p>Signed in as <b>${email}</b></p>`; // email escaped
 * ```
 */
export function markup(strings: TemplateStringsArray, ...values: unknown[]): HtmlEscapedString {
  const result = html(strings, ...values);
  if (result instanceof Promise) throw new Error('A page template was given a promise.');
  return result;
}

/** A page of the broker: a title, its HTML body and what it may run. */
export interface HtmlPage {
  readonly title: string;
  /** Trusted HTML: made with {@link markup}, or every interpolated value escaped. */
  readonly body: string;
  /** An inline script, run after the body. */
  readonly script?: string;
  /** A same-origin script file, loaded after the body (and after {@link HtmlPage.script}). */
  readonly scriptSrc?: string;
  /**
   * The page's style sheet.
   * @default the narrow form layout of the sign-in pages ({@link formStyle})
   */
  readonly style?: string;
  /** Attributes of `<body>` (names as given, values escaped), such as `data-*` for a script. */
  readonly bodyAttributes?: Readonly<Record<string, string>>;
  /**
   * Whether the page has forms; without, its policy lets nothing post.
   * @default true
   */
  readonly forms?: boolean;
  /**
   * Origins besides this one that the page's form may lead to (the CSP `form-action`, which
   * browsers also apply to the redirect that answers a post), such as an OAuth provider's.
   */
  readonly formTargets?: readonly string[];
}

/** The narrow, one-column layout of the sign-in, account and connect pages. */
export const formStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1b1b1f}
h1{font-size:1.4rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a4161a}.muted{color:#555;font-size:.9rem}`;

/** The page as an HTML document whose script and style carry `nonce`. */
export function renderPage(page: HtmlPage, nonce: string): string {
  // The body, script and style are the broker's own markup; everything else is escaped.
  const script =
    page.script === undefined ? '' : markup`<script nonce="${nonce}">${raw(page.script)}</script>`;
  const scriptSrc =
    page.scriptSrc === undefined
      ? ''
      : markup`<script nonce="${nonce}" src="${page.scriptSrc}"></script>`;
  const attributes = Object.entries(page.bodyAttributes ?? {}).map(
    ([name, value]) => markup` ${raw(name)}="${value}"`,
  );
  return markup`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${page.title}</title>
<style nonce="${nonce}">${raw(page.style ?? formStyle)}</style></head><body${attributes}>${raw(page.body)}${script}${scriptSrc}</body></html>`.toString();
}

/**
 * Renders a page as a response with the headers every broker page sends
 * ({@link pageSecurityHeaders}): a fresh nonce, the one Content Security Policy, no framing, no
 * sniffing, no caching, same-origin referrers.
 *
 * @example
 * ```ts
 * return pageResponse({ title: 'Done', body: '<h1>Done</h1>', forms: false }, { status: 200 });
 * ```
 */
export function pageResponse(
  page: HtmlPage,
  init: { status?: number; headers?: HeadersInit; setCookies?: readonly string[] } = {},
): Response {
  const nonce = pageNonce();
  const headers = new Headers(init.headers);
  const policy = {
    nonce,
    ...(page.forms === undefined ? {} : { forms: page.forms }),
    ...(page.formTargets === undefined ? {} : { formTargets: page.formTargets }),
  };
  for (const [name, value] of Object.entries(pageSecurityHeaders(policy))) {
    headers.set(name, value);
  }
  for (const cookie of init.setCookies ?? []) headers.append('set-cookie', cookie);
  return new Response(renderPage(page, nonce), { status: init.status ?? 200, headers });
}

/** A hidden form field. */
export const hidden = (name: string, value: string): HtmlEscapedString =>
  markup`<input type="hidden" name="${name}" value="${value}">`;
