import type { BrokerFeature } from '../feature/broker-feature.ts';
import { mailSection } from './mail-section.ts';
import { Outbox } from './outbox.ts';

/**
 * Email the app sends (spec 4.6), captured in development. Its listing shows received mail
 * beside it, so the feature that receives mounts it.
 */
export const outboxFeature: BrokerFeature<'outbox', object, Outbox> = {
  name: 'outbox',
  start: (base) => new Outbox(base.db, base.activity),
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
