import type { InspectionHold } from '../backups/inspection-hold.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import { captureMail, type MailDelivery } from './mail-delivery.ts';
import { mailSection } from './mail-section.ts';
import { Outbox } from './outbox.ts';

/**
 * Email the app sends (spec 4.6): captured in development, or sent as `delivery` says
 * (`platform serve`). Its listing shows received mail beside it, so the feature that receives
 * mounts it.
 */
export function outboxFeatureWith(
  delivery: MailDelivery,
): BrokerFeature<'outbox', { hold: InspectionHold }, Outbox> {
  return {
    name: 'outbox',
    // A copy held for inspection captures what it sends, whatever the service's delivery.
    start: (base, { hold }) => new Outbox(base.db, base.activity, delivery, () => hold.held()),
    dashboard: [mailSection],
    erasure: {
      appPerson: async (tx, person) => {
        await tx.query(
          `DELETE FROM platform.outbox WHERE EXISTS (
             SELECT 1 FROM jsonb_array_elements_text(recipients) AS r WHERE lower(r) = $1)`,
          [person.email],
        );
      },
    },
  };
}

/** Development email: captured, never sent. */
export const outboxFeature: BrokerFeature<'outbox', { hold: InspectionHold }, Outbox> =
  outboxFeatureWith(captureMail);
