/**
 * `@platform/browser/testing`: a mock broker as msw request handlers, so frontends that use
 * `@platform/browser` are tested without a server.
 *
 * @packageDocumentation
 */
export {
  createMockBroker,
  type MockBroker,
  type MockBrokerOptions,
  type MockContext,
  type MockFailure,
  type MockFunction,
  type MockRequest,
  type MockRoute,
  type MockStreamFunction,
} from './mock-broker.ts';
export { createMockRealtime, type MockRealtime } from './mock-realtime.ts';
