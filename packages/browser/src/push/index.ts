/**
 * `@platform/browser/push`: subscribe the signed-in user to the app's notifications on this
 * device, and unsubscribe. A subpath, so apps without notifications do not carry it. The app's
 * service worker shows what arrives: see `@platform/browser/push-worker`.
 *
 * @packageDocumentation
 */
export { createPush, push } from './create-push.ts';
export type { PlatformPush, PushDevice, PushOptions, SubscribeOptions } from './types.ts';
