/**
 * `@platform/server/testing/msw`: the mock broker as msw request handlers, generated from the
 * runtime contract (one handler per route). Needs `msw` (a peer dependency).
 *
 * @packageDocumentation
 */

import { runtimeContract } from '@platform/schema/contract';
import { type HttpHandler, http } from 'msw';
import type { MockBroker } from './mock-broker.ts';

/**
 * One msw handler per route of the runtime contract, answering from `broker`.
 *
 * @example
 * ```ts
 * const broker = createMockBroker({ data: { todos: [] } });
 * const server = setupServer(...mockBrokerHandlers(broker));
 * server.listen({ onUnhandledFrame: 'error' });
 * ```
 */
export function mockBrokerHandlers(broker: MockBroker): HttpHandler[] {
  return Object.values(runtimeContract).map((route) => {
    const method = route.method.toLowerCase() as 'post';
    return http[method](new URL(route.path, broker.url).href, ({ request }) =>
      broker.fetch(request),
    );
  });
}

export { createMockBroker, type MockBroker, type MockBrokerOptions } from './mock-broker.ts';
