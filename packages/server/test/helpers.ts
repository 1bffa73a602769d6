import type { Invocation } from '@platform/schema/contract';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { buildContext } from '../src/context/create-context.ts';
import {
  createMockBroker,
  type MockBroker,
  type MockBrokerOptions,
} from '../src/testing/mock-broker.ts';
import { mockBrokerHandlers } from '../src/testing/msw.ts';

/**
 * One msw server per test file, answering from a mock broker generated from the contract.
 * `use(options)` swaps in a fresh broker; `sent()` counts requests that reached the network.
 */
export function mswBroker() {
  let broker = createMockBroker();
  let requests = 0;
  const server = setupServer();
  server.events.on('request:start', () => {
    requests++;
  });
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    requests = 0;
  });
  afterAll(() => server.close());
  return {
    use(options: MockBrokerOptions = {}): MockBroker {
      broker = createMockBroker(options);
      server.resetHandlers(...mockBrokerHandlers(broker));
      return broker;
    },
    get broker() {
      return broker;
    },
    sent: () => requests,
    /** A context whose members call the mock broker over (intercepted) `fetch`. */
    context<Input = unknown>(overrides: Partial<Invocation> = {}, input?: Input) {
      return buildContext(broker.invocation(overrides), input as Input);
    },
  };
}
