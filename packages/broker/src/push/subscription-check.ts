import { createPublicKey } from 'node:crypto';
import { PlatformError } from '@platform/errors';

/** A push subscription as the broker stores it: endpoint and the device's keys, base64url. */
export interface PushSubscriptionKeys {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

const invalid = (message: string, field: string): PlatformError =>
  new PlatformError({ code: 'PUSH_SUBSCRIPTION_INVALID', message, details: { field } });

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Checks what the contract's schema cannot: the endpoint is an https URL (or, when
 * `allowLoopbackHttp`, an http URL on this machine, as the local push service's are), `p256dh`
 * is an uncompressed point of P-256 and `auth` is 16 bytes. Encrypting for a bad key would fail
 * at every send; refusing it here tells the browser at once. Answers the subscription with keys
 * in unpadded base64url, the form the broker stores.
 */
export function checkSubscription(
  subscription: PushSubscriptionKeys,
  options: { readonly allowLoopbackHttp: boolean },
): PushSubscriptionKeys {
  let url: URL;
  try {
    url = new URL(subscription.endpoint);
  } catch {
    throw invalid('The subscription endpoint is not a URL.', 'endpoint');
  }
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !(loopbackHttp && options.allowLoopbackHttp)) {
    throw invalid(
      `The subscription endpoint must be an https URL of a push service, not ${url.protocol}//${url.host}.`,
      'endpoint',
    );
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    throw invalid(
      'The subscription endpoint must not carry credentials or a fragment.',
      'endpoint',
    );
  }
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
