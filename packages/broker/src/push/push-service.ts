import { PlatformError } from '@platform/errors';
import { encodeNotificationPayload, type NotificationPayload } from '@platform/schema/contract';
import type { Database } from '../db/database.ts';
import { currentLocalEndpoint, localDeviceId } from './local-endpoints.ts';
import { LocalPushService } from './local-push-service.ts';
import { type DeliveryOutcome, deliverPush } from './push-delivery.ts';
import { PushSubscriptions } from './push-subscriptions.ts';
import {
  checkSubscription,
  type EndpointRules,
  endpointProblem,
  type PushSubscriptionKeys,
} from './subscription-check.ts';
import { loadVapidKeys, type VapidKeys } from './vapid-keys.ts';
import { VapidSigner } from './vapid-signer.ts';

/** A notification for app users (the body of `notifications.send`). */
export interface Notification extends NotificationPayload {
  /** App user ids. */
  readonly to: string | readonly string[];
}

/** How {@link PushService.create} sets up Web Push for one app. */
export interface PushServiceOptions {
  /** The app's `.platform/` folder (holds `push/vapid.json`). */
  readonly stateDir: string;
  /** The broker's URL: where local subscriptions point. */
  readonly brokerUrl: string;
  /** @default 'local' */
  readonly appId?: string;
  /**
   * `local` (development, the default): subscriptions go to the broker's own push service, and
   * only its endpoints (and `pushServiceHosts`) are accepted. `browser`: the browsers' https
   * push services.
   */
  readonly pushService?: 'local' | 'browser';
  /**
   * The push services subscriptions may name besides the local one: host names (https on it
   * and its subdomains) or exact origins. @default with `local` none; with `browser` any https
   * host named by DNS
   */
  readonly pushServiceHosts?: readonly string[] | undefined;
  /** The VAPID `sub` contact. @default 'mailto:push@localhost.invalid' */
  readonly subject?: string;
  /** Waits between retries (tests and benches). @default setTimeout */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /**
   * True while the app is a copy restored from a backup, held for inspection
   * (docs/backups.md): `send` contacts no push service and answers `delivered: 0`.
   * @default never held
   */
  readonly held?: (() => Promise<boolean>) | undefined;
}

/**
 * Web Push for one app: its VAPID key pair, its users' subscriptions, `notifications.send`, and
 * in development the local push service (docs/notifications.md).
 *
 * `send` answers how many devices' push services accepted the notification. A device whose
 * service answers 404 or 410 is forgotten; one that is down or busy (429, 5xx, unreachable,
 * after bounded retries) counts as not reached. Only when no device was reached and at least
 * one failed that way does `send` throw the retryable `PUSH_SERVICE_UNAVAILABLE`: retrying
 * then repeats nothing, whereas retrying a partial success would notify some devices twice.
 *
 * @example
 * ```ts
 * const push = await PushService.create(db, { stateDir: '.platform', brokerUrl: server.url });
 * const { delivered } = await push.send({ to: userId, title: 'Milk', url: '/todos' });
 * ```
 */
export class PushService {
  readonly subscriptions: PushSubscriptions;
  /** The local push service, in development. */
  readonly local: LocalPushService | undefined;
  readonly #vapid: VapidKeys;
  readonly #signer: VapidSigner;
  readonly #options: PushServiceOptions;
  readonly #rules: EndpointRules;

  private constructor(db: Database, vapid: VapidKeys, options: PushServiceOptions) {
    this.#vapid = vapid;
    this.#signer = new VapidSigner(vapid, options.subject ?? 'mailto:push@localhost.invalid');
    this.#options = options;
    this.subscriptions = new PushSubscriptions(db, options.appId ?? 'local');
    this.local =
      (options.pushService ?? 'local') === 'local'
        ? new LocalPushService(db, vapid.publicKey)
        : undefined;
    this.#rules = {
      localServiceUrl: this.local ? options.brokerUrl : undefined,
      hosts: options.pushServiceHosts,
    };
  }

  /** Loads (or makes, on the first start) the app's VAPID key pair. */
  static async create(db: Database, options: PushServiceOptions): Promise<PushService> {
    return new PushService(db, await loadVapidKeys(options.stateDir), options);
  }

  /** The VAPID public key browsers subscribe with (the private key never leaves the broker). */
  get publicKey(): string {
    return this.#vapid.publicKey;
  }

  /** Which push service new subscriptions should use. */
  get pushService(): 'local' | 'browser' {
    return this.local ? 'local' : 'browser';
  }

  /**
   * Stores a browser's subscription for `userId` after {@link checkSubscription}
   * (`PUSH_SUBSCRIPTION_INVALID`). Answers the stored endpoint.
   */
  async subscribe(userId: string, subscription: PushSubscriptionKeys): Promise<string> {
    const checked = checkSubscription(subscription, this.#rules);
    await this.subscriptions.save(userId, checked);
    return checked.endpoint;
  }

  /** Subscribes `userId` on a new device of the local push service (development). */
  async subscribeLocal(userId: string): Promise<string> {
    if (!this.local) {
      throw new PlatformError({
        code: 'PUSH_SUBSCRIPTION_INVALID',
        message:
          'This broker runs no local push service; subscribe with the browser’s PushManager.',
        details: { field: 'local' },
      });
    }
    const device = await this.local.subscribe(this.#options.brokerUrl, userId);
    await this.subscriptions.save(userId, device);
    return device.endpoint;
  }

  /** Forgets one of `userId`'s subscriptions (and the local device behind it). */
  async unsubscribe(userId: string, endpoint: string): Promise<boolean> {
    let normalized = endpoint;
    try {
      normalized = new URL(endpoint).href;
    } catch {
      return false;
    }
    const removed = await this.subscriptions.remove(userId, normalized);
    if (removed && this.local && localDeviceId(normalized) !== undefined) {
      await this.local.removeDevice(normalized);
    }
    return removed;
  }

  /**
   * Sends a visible notification to every subscribed device of the addressed users:
   * `NOTIFICATION_TOO_LARGE` before anything is sent when it cannot fit one push message. A
   * stored endpoint the rules refuse now (stored by an earlier version, or before the allowed
   * push services changed) is not contacted and counts as not delivered.
   */
  async send(notification: Notification): Promise<{ delivered: number }> {
    const payload = encodeNotificationPayload(notification);
    const to = typeof notification.to === 'string' ? [notification.to] : [...notification.to];
    // A held copy must not notify anyone its backup knew, through a subscription made since.
    if (await this.#options.held?.()) return { delivered: 0 };
    const devices = await this.subscriptions.ofUsers([...new Set(to)]);
    const outcomes = await Promise.all(
      devices.map(async (device) => {
        const endpoint = currentLocalEndpoint(device.endpoint, this.#options.brokerUrl);
        if (endpointProblem(endpoint, this.#rules) !== undefined) {
          return { kind: 'rejected', status: null } satisfies DeliveryOutcome;
        }
        const outcome = await deliverPush({ endpoint, keys: device.keys }, payload, {
          signer: this.#signer,
          ...(this.#options.sleep ? { sleep: this.#options.sleep } : {}),
        });
        if (outcome.kind === 'gone') await this.subscriptions.expire(device.endpoint);
        return outcome;
      }),
    );
    const delivered = outcomes.filter((o) => o.kind === 'delivered').length;
    const down = outcomes.filter(
      (o): o is Extract<DeliveryOutcome, { kind: 'unavailable' }> => o.kind === 'unavailable',
    );
    if (delivered === 0 && down.length > 0) {
      throw new PlatformError({
        code: 'PUSH_SERVICE_UNAVAILABLE',
        message: `No push service accepted the notification: ${down.length} of ${devices.length} device(s) could not be reached (${down[0]!.reason}). Try again later.`,
        details: { devices: devices.length, unavailable: down.length },
      });
    }
    return { delivered };
  }
}
