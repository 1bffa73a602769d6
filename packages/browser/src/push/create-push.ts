import { PlatformError } from '@platform/errors';
import { pushRoutes } from '@platform/schema/routes';
import { deadline, ensureOk, invalidResponse, type Transport } from '../request.ts';
import { createSession } from '../session.ts';
import type { PlatformPush, PushDevice, PushOptions, SubscribeOptions } from './types.ts';

// Where a local (development) subscription's endpoint is remembered: it has no PushManager
// subscription to find it by. The endpoint is not a credential of the user.
const LOCAL_KEY = 'platform.push.localEndpoint';

const storage = (): Storage | undefined => {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
};

/**
 * Creates the push API for one app. Nothing is fetched until first use.
 *
 * @example
 * ```ts
 * import { createPush } from '@platform/browser/push';
 * const push = createPush({ appUrl: 'https://todos.example.app' });
 * const device = await push.subscribe();
 * ```
 */
export function createPush(options: PushOptions = {}): PlatformPush {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport: Transport = {
    url: (path) => {
      const base = options.appUrl ?? globalThis.location?.origin;
      if (!base) throw new TypeError('createPush needs `appUrl` outside a browser page.');
      return new URL(path, String(base)).href;
    },
    fetch: (input, init) => (options.fetch ?? fetch)(input, init),
    now: () => Date.now(),
  };
  const session = createSession(transport, timeoutMs);

  const request = async (
    route: { method: string; path: string },
    body?: unknown,
  ): Promise<unknown> => {
    const headers: Record<string, string> = {};
    if (body !== undefined) {
      const { user, token } = await session.credentials();
      if (!user || !token) {
        throw new PlatformError({
          code: 'AUTH_REQUIRED',
          message: 'Sign in first: push subscriptions belong to a signed-in user.',
        });
      }
      headers.authorization = `Bearer ${token}`;
      headers['content-type'] = 'application/json';
    }
    const call = deadline(undefined, timeoutMs);
    try {
      const response = await ensureOk(
        await transport.fetch(transport.url(route.path), {
          method: route.method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          credentials: 'include',
          signal: call.signal,
        }),
      );
      try {
        return await response.json();
      } catch (error) {
        throw invalidResponse(response.status, error);
      }
    } catch (error) {
      throw call.fail(error);
    } finally {
      call.clear();
    }
  };

  const registrationOf = async (options?: SubscribeOptions) => {
    if (options?.registration) return options.registration;
    if (!globalThis.navigator?.serviceWorker) {
      throw new TypeError('Push needs a service worker: this browser or page has none.');
    }
    return navigator.serviceWorker.ready;
  };

  return {
    async subscribe(options) {
      const key = (await request(pushRoutes.pushKey)) as {
        publicKey: string;
        pushService: PushDevice['pushService'];
      };
      if (key.pushService === 'local') {
        const { endpoint } = (await request(pushRoutes.pushSubscribe, { local: true })) as {
          endpoint: string;
        };
        storage()?.setItem(LOCAL_KEY, endpoint);
        return { endpoint, pushService: 'local' };
      }
      const registration = await registrationOf(options);
      const permission = await Notification.requestPermission();
      if (permission !== 'granted') {
        throw new PlatformError({
          code: 'PUSH_PERMISSION_DENIED',
          message: `Notifications are ${permission === 'denied' ? 'blocked' : 'not allowed'} for this site; the user can allow them in the browser's site settings.`,
        });
      }
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: key.publicKey,
      });
      const { endpoint } = (await request(pushRoutes.pushSubscribe, subscription.toJSON())) as {
        endpoint: string;
      };
      return { endpoint, pushService: 'browser' };
    },

    async unsubscribe(options) {
      let removed = false;
      const local = storage()?.getItem(LOCAL_KEY);
      if (local) {
        ({ removed } = (await request(pushRoutes.pushUnsubscribe, { endpoint: local })) as {
          removed: boolean;
        });
        storage()?.removeItem(LOCAL_KEY);
      }
      // `getRegistration`, not `ready`: a page that never registered a worker has nothing more
      // to remove, and `ready` would wait for ever.
      const registration =
        options?.registration ?? (await globalThis.navigator?.serviceWorker?.getRegistration());
      const subscription = await registration?.pushManager.getSubscription();
      if (!subscription) return removed;
      const answer = (await request(pushRoutes.pushUnsubscribe, {
        endpoint: subscription.endpoint,
      })) as { removed: boolean };
      await subscription.unsubscribe();
      return removed || answer.removed;
    },
  };
}

/**
 * The push API of the page's own origin.
 *
 * @example
 * ```ts
 * import { push } from '@platform/browser/push';
 * await push.subscribe();
 * ```
 */
export const push: PlatformPush = createPush();
