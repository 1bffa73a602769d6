/** Options of {@link createPush}. */
export interface PushOptions {
  /**
   * The app's URL.
   * @default the page's own origin
   */
  readonly appUrl?: string | URL;
  /**
   * The fetch used for every request.
   * @default globalThis.fetch
   */
  readonly fetch?: typeof fetch;
  /**
   * Time limit of each request, in milliseconds.
   * @default 10000
   */
  readonly timeoutMs?: number;
}

/** Options of {@link PlatformPush.subscribe}. */
export interface SubscribeOptions {
  /**
   * The service worker registration whose `pushManager` subscribes (its script should call
   * `handlePushEvents` of `@platform/browser/push-worker`).
   * @default await navigator.serviceWorker.ready
   */
  readonly registration?: ServiceWorkerRegistration;
}

/** The subscription of this device, as the platform stored it. */
export interface PushDevice {
  /** The push service URL of this device (opaque; treat it as a secret). */
  readonly endpoint: string;
  /**
   * `browser`: the browser's own push service delivers to the service worker. `local`: the
   * development broker's local push service received the subscription and shows what it
   * receives in the dashboard; nothing reaches a public push service.
   */
  readonly pushService: 'local' | 'browser';
}

/** Web Push for the signed-in user of an app. */
export interface PlatformPush {
  /**
   * Subscribes the signed-in user on this device: asks for notification permission, subscribes
   * the service worker's `pushManager` with the app's VAPID key, and stores the subscription.
   * Under `platform dev` the broker's local push service is used instead (no permission
   * prompt, no public push service). Throws `AUTH_REQUIRED` when nobody is signed in and
   * `PUSH_PERMISSION_DENIED` when the user refuses notifications.
   *
   * @example
   * ```ts
   * import { push } from '@platform/browser/push';
   * await navigator.serviceWorker.register('/sw.js', { type: 'module' });
   * button.onclick = () => push.subscribe();
   * ```
   */
  subscribe(options?: SubscribeOptions): Promise<PushDevice>;
  /**
   * Removes this device's subscription (at the platform and, for a browser push service, in the
   * service worker's `pushManager`); resolves to whether the platform had one. Uses
   * `options.registration` or the page's current registration, if any.
   *
   * @example
   * ```ts
   * await push.unsubscribe();
   * ```
   */
  unsubscribe(options?: SubscribeOptions): Promise<boolean>;
}
