/**
 * A notification as `ctx.notifications.send` sends it to a device (docs/notifications.md):
 * the JSON of the notification without its recipients.
 */
export interface PushNotification {
  readonly title: string;
  readonly body?: string;
  /** Opened on click; a path of the app or an absolute URL. */
  readonly url?: string;
  readonly icon?: string;
  readonly tag?: string;
}

interface WindowClientLike {
  readonly url: string;
  focus(): Promise<unknown>;
}

interface NotificationLike {
  readonly data: unknown;
  close(): void;
}

interface ExtendableEventLike {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The parts of `ServiceWorkerGlobalScope` the helper uses (typed here, so apps need not load
 * the WebWorker library into their DOM types).
 */
export interface PushWorkerScope {
  readonly location: { readonly origin: string };
  readonly registration: {
    showNotification(title: string, options?: Record<string, unknown>): Promise<void>;
  };
  readonly clients: {
    matchAll(options: {
      type: 'window';
      includeUncontrolled: boolean;
    }): Promise<readonly WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
  };
  addEventListener(
    type: 'push',
    listener: (event: ExtendableEventLike & { readonly data: { text(): string } | null }) => void,
  ): void;
  addEventListener(
    type: 'notificationclick',
    listener: (event: ExtendableEventLike & { readonly notification: NotificationLike }) => void,
  ): void;
}

/**
 * Reads a push message's text as a {@link PushNotification}. A message that is not one (plain
 * text, or JSON without a title) is still shown, with its text as the title: a push that shows
 * nothing would break the user-visible promise browsers hold workers to.
 */
export function readNotification(text: string): PushNotification {
  try {
    const value = JSON.parse(text) as Partial<PushNotification> | null;
    if (value && typeof value.title === 'string') {
      return {
        title: value.title,
        ...(typeof value.body === 'string' ? { body: value.body } : {}),
        ...(typeof value.url === 'string' ? { url: value.url } : {}),
        ...(typeof value.icon === 'string' ? { icon: value.icon } : {}),
        ...(typeof value.tag === 'string' ? { tag: value.tag } : {}),
      };
    }
  } catch {
    // not JSON: shown as text below
  }
  return { title: text || 'New notification' };
}

/**
 * Shows every push as a notification and opens its URL when clicked: a tab of the app already
 * at that URL is focused, otherwise a new one opens. URLs resolve against the worker's origin.
 *
 * @example
 * ```ts
 * // public/sw.ts, registered with navigator.serviceWorker.register('/sw.js', { type: 'module' })
 * import { handlePushEvents } from '@platform/browser/push-worker';
 * handlePushEvents(self as unknown as PushWorkerScope);
 * ```
 */
export function handlePushEvents(scope: PushWorkerScope): void {
  scope.addEventListener('push', (event) => {
    const notification = readNotification(event.data?.text() ?? '');
    event.waitUntil(
      scope.registration.showNotification(notification.title, {
        ...(notification.body === undefined ? {} : { body: notification.body }),
        ...(notification.icon === undefined
          ? {}
          : { icon: new URL(notification.icon, scope.location.origin).href }),
        ...(notification.tag === undefined ? {} : { tag: notification.tag }),
        data: { url: new URL(notification.url ?? '/', scope.location.origin).href },
      }),
    );
  });
  scope.addEventListener('notificationclick', (event) => {
    event.notification.close();
    const data = event.notification.data as { url?: unknown } | null;
    const url = typeof data?.url === 'string' ? data.url : new URL('/', scope.location.origin).href;
    event.waitUntil(
      (async () => {
        const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
        const open = windows.find((client) => client.url === url);
        if (open) await open.focus();
        else await scope.clients.openWindow(url);
      })(),
    );
  });
}
