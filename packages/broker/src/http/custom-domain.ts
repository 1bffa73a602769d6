/**
 * The header `platform serve` sets on a request it routes to an app by one of the app's custom
 * domains (docs/production.md, "Custom domains"), after removing any the client sent. It only
 * ever shortens what a call may do (its data authorization ends sooner), so a client that sends
 * it elsewhere (to `platform dev`) restricts nobody but itself.
 */
export const CUSTOM_DOMAIN_HEADER = 'x-platform-custom-domain';

/**
 * Whether a Function call is a browser's on a custom domain: it came by a custom domain and
 * carries no `Authorization` credential of its own (an app access token or access JWT is
 * checked on each request and keeps its own lifetime), so it runs on the browser's session.
 */
export function isCustomDomainBrowserCall(request: Request): boolean {
  return request.headers.has(CUSTOM_DOMAIN_HEADER) && !request.headers.has('authorization');
}
