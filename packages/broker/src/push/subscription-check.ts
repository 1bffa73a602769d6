import { createPublicKey } from 'node:crypto';
import { PlatformError } from '@platform/errors';
import { LOCAL_PUSH_PREFIX } from '../http/paths.ts';
import { LOOPBACK_HOSTS, localDeviceId } from './local-endpoints.ts';

/** A push subscription as the broker stores it: endpoint and the device's keys, base64url. */
export interface PushSubscriptionKeys {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

const invalid = (message: string, field: string): PlatformError =>
  new PlatformError({ code: 'PUSH_SUBSCRIPTION_INVALID', message, details: { field } });

/** What a subscription endpoint may name, besides well-formed keys. */
export interface EndpointRules {
  /**
   * The broker's own URL when it runs the local push service: that service's device endpoints
   * (`http://127.0.0.1:<its port>/_platform/push-service/<device>`, or on `localhost` or `[::1]`)
   * are accepted, and then nothing else unless `hosts` names it. @default no local push service
   */
  readonly localServiceUrl?: string | undefined;
  /**
   * The push services accepted: a host name (`fcm.googleapis.com`) accepts `https:` on it and
   * its subdomains, an origin (`http://127.0.0.1:8080`) accepts exactly that origin.
   * @default with a local push service none; without one any `https:` host named by DNS
   */
  readonly hosts?: readonly string[] | undefined;
}

// After WHATWG parsing, which writes every IPv4 form (`2130706433`, `0x7f.0.0.1`, `127.1`) as
// dotted decimal and every IPv6 one bracketed and compressed, an address host is one of these.
const IP_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[\da-f:.]+\])$/;

/**
 * Why `endpoint` may not receive push messages under `rules`, or `undefined` when it may.
 * Hosts are compared after WHATWG URL parsing, so no spelling of an address slips past.
 */
export function endpointProblem(endpoint: string, rules: EndpointRules): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'The subscription endpoint is not a URL.';
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    return 'The subscription endpoint must not carry credentials or a fragment.';
  }
  if (rules.localServiceUrl !== undefined && isLocalServiceEndpoint(url, rules.localServiceUrl)) {
    return undefined;
  }
  if (rules.hosts !== undefined || rules.localServiceUrl !== undefined) {
    if ((rules.hosts ?? []).some((entry) => hostAllowed(url, entry))) return undefined;
    const where =
      rules.localServiceUrl === undefined
        ? ''
        : ` The local push service's devices are ${new URL(LOCAL_PUSH_PREFIX, rules.localServiceUrl).href}/<device>.`;
    return `The subscription endpoint ${url.origin} is not a push service this broker sends to.${where}`;
  }
  if (url.protocol !== 'https:') {
    return `The subscription endpoint must be an https URL of a push service, not ${url.protocol}//${url.host}.`;
  }
  if (IP_HOST.test(url.hostname) || isLocalName(url.hostname)) {
    return `The subscription endpoint must name a push service by its DNS name, not ${url.hostname}.`;
  }
  return undefined;
}

function isLocalServiceEndpoint(url: URL, localServiceUrl: string): boolean {
  const local = new URL(localServiceUrl);
  return (
    url.protocol === 'http:' &&
    LOOPBACK_HOSTS.has(url.hostname) &&
    url.port === local.port &&
    url.search === '' &&
    localDeviceId(url.href) !== undefined
  );
}

function hostAllowed(url: URL, entry: string): boolean {
  if (entry.includes('://')) {
    try {
      return new URL(entry).origin === url.origin;
    } catch {
      return false;
    }
  }
  const host = entry.toLowerCase().replace(/\.$/, '');
  return url.protocol === 'https:' && (url.hostname === host || url.hostname.endsWith(`.${host}`));
}

function isLocalName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * Checks what the contract's schema cannot: the endpoint is a push service `rules` accept (see
 * {@link endpointProblem}), `p256dh` is an uncompressed point of P-256 and `auth` is 16 bytes.
 * Encrypting for a bad key would fail at every send; refusing it here tells the browser at
 * once. Answers the subscription with keys in unpadded base64url, the form the broker stores.
 */
export function checkSubscription(
  subscription: PushSubscriptionKeys,
  rules: EndpointRules,
): PushSubscriptionKeys {
  const problem = endpointProblem(subscription.endpoint, rules);
  if (problem !== undefined) throw invalid(problem, 'endpoint');
  const url = new URL(subscription.endpoint);
  const p256dh = Buffer.from(subscription.keys.p256dh, 'base64url');
  if (p256dh.byteLength !== 65 || p256dh[0] !== 0x04 || !onCurve(p256dh)) {
    throw invalid(
      'keys.p256dh must be the uncompressed P-256 public key of the subscription (65 bytes, base64url).',
      'keys.p256dh',
    );
  }
  const auth = Buffer.from(subscription.keys.auth, 'base64url');
  if (auth.byteLength !== 16) {
    throw invalid(
      'keys.auth must be the 16-byte authentication secret of the subscription (base64url).',
      'keys.auth',
    );
  }
  return {
    endpoint: url.href,
    keys: { p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') },
  };
}

function onCurve(point: Buffer): boolean {
  try {
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33, 65).toString('base64url'),
      },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}
