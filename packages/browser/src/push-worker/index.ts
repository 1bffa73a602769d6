/**
 * `@platform/browser/push-worker`: the service-worker half of Web Push. Call
 * {@link handlePushEvents} in the app's service worker: each push shows its notification, and a
 * click opens the notification's URL (focusing a tab already showing it).
 *
 * @packageDocumentation
 */
export {
  handlePushEvents,
  type PushNotification,
  type PushWorkerScope,
  readNotification,
} from './handle-push-events.ts';
