/** Where a request's `Host` leads on the service. */
export type HostTarget =
  | { readonly kind: 'base' }
  | { readonly kind: 'app'; readonly appId: string }
  | { readonly kind: 'unknown' };

const APP_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The host name of a `Host` header: lower case, without port or trailing dot. */
export function hostName(header: string | null | undefined): string {
  if (!header) return '';
  const trimmed = header.trim().toLowerCase();
  const name = trimmed.startsWith('[')
    ? trimmed.slice(0, trimmed.indexOf(']') + 1)
    : trimmed.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

/**
 * Routes by host name: the base domain is `{base_url}`; one label in front of it,
 * `<app>.<base domain>`, is that app's `{app_url}`; anything else (a deeper name, another
 * domain, an IP address, no Host) is unknown, and is never answered by an app.
 */
export function routeHost(name: string, baseDomain: string): HostTarget {
  if (name === baseDomain) return { kind: 'base' };
  const suffix = `.${baseDomain}`;
  if (name.endsWith(suffix)) {
    const label = name.slice(0, -suffix.length);
    if (APP_LABEL.test(label)) return { kind: 'app', appId: label };
  }
  return { kind: 'unknown' };
}

/**
 * `request` with the scheme people use to reach the service: the TLS-terminating proxy speaks
 * plain HTTP to it, while browsers send `Origin: https://...` and need `Secure` cookies. The
 * scheme is the one of `{base_url}` (`PLATFORM_BASE_URL`), never a request header a client
 * could set. The request itself when the schemes agree.
 */
export function withServiceScheme(request: Request, baseUrl: string): Request {
  const scheme = new URL(baseUrl).protocol;
  const url = new URL(request.url);
  if (url.protocol === scheme) return request;
  url.protocol = scheme;
  return new Request(url, request);
}
