import {
  createMockBroker,
  type MockBroker,
  type MockBrokerOptions,
} from '@platform/browser/testing';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createPlatform, type Platform, type PlatformOptions } from '../src/index.ts';

export const APP = 'https://todos.example.app';

/** One msw server for a test file; each test installs its own broker's handlers. */
export function useMsw() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** A settable clock shared by the SDK and the mock broker. */
export function clock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
  };
}

/** A mock broker on {@link APP} and a platform instance talking to it. */
export function setup(
  server: ReturnType<typeof setupServer>,
  broker: MockBrokerOptions = {},
  options: PlatformOptions = {},
): { broker: MockBroker; platform: Platform } {
  const mock = createMockBroker({ appUrl: APP, ...broker });
  server.use(...mock.handlers);
  return { broker: mock, platform: createPlatform({ appUrl: APP, ...options }) };
}

/** Resolves the returned promise's `open` when `release` is called. */
export function gate() {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { opened, release };
}
