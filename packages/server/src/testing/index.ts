/**
 * `@platform/server/testing`: unit-test Functions without a broker. `createTestContext` gives an
 * in-memory handler context; `runFunction` runs a Function against one; `createMockBroker` is
 * the whole runtime contract in memory (for `runInvocation`, hosts and other packages' tests;
 * msw handlers of it are in `@platform/server/testing/msw`).
 *
 * @example
 * ```ts
 * import { createTestContext } from '@platform/server/testing';
 * const ctx = createTestContext({ input: { title: 'Milk' }, data: { todos: [] } });
 * await saveTodo.run(ctx);
 * ctx.tables.todos; // [{ id: '...', title: 'Milk' }]
 * ```
 *
 * @packageDocumentation
 */

export { receivedEmail, type TestEmail } from './inbound-email.ts';
export { integrationEvent, type TestIntegrationEvent } from './integration-event.ts';
export { integrationSlotsFrom, type TestIntegrationSlots } from './integration-slots.ts';
export { memoryRoutes, type RouteCall, type RouteImpl } from './memory-routes.ts';
export {
  type FakeAi,
  type MemoryBrokerSeed,
  MemoryState,
  type StoredFile,
  type StoredJob,
} from './memory-state.ts';
export {
  createMockBroker,
  type MockBroker,
  type MockBrokerOptions,
  type ReceivedRequest,
} from './mock-broker.ts';
export {
  type AiFixture,
  createOfflineAi,
  encodePng,
  fixtureMatches,
  type OfflineAi,
  type OfflineAiOptions,
  type OfflineTextRequest,
  offlineChunks,
  offlineImage,
  offlineObject,
  offlineText,
  parseAiFixtures,
} from './offline-ai/index.ts';
export { type JobAttemptOutcome, runJobAttempt } from './run-job-attempt.ts';
export {
  createTestContext,
  runFunction,
  type TestContext,
  type TestContextOptions,
  type TestSearch,
} from './test-context.ts';
