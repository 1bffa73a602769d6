import type { BrokerFeature } from '../feature/broker-feature.ts';
import { mountDataBrowser } from './data-browser.ts';
import { dataSection } from './data-section.ts';
import { DataService } from './data-service.ts';

/**
 * Row reads and writes of the app's tables under row-level security (spec 4.3), and the
 * console's Data section with its owner API.
 */
export const dataFeature: BrokerFeature<'data', object, DataService> = {
  name: 'data',
  start: (base) => new DataService(base.db),
  mount: { routes: (app, data, _needs, { appId }) => mountDataBrowser(app, { appId, data }) },
  dashboard: [dataSection],
};
