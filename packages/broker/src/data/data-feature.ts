import type { BrokerFeature } from '../feature/broker-feature.ts';
import { DataService } from './data-service.ts';

/** Row reads and writes of the app's tables under row-level security (spec 4.3). */
export const dataFeature: BrokerFeature<'data', object, DataService> = {
  name: 'data',
  start: (base) => new DataService(base.db),
};
