import type { JsonObject } from '@platform/errors';
import type { Invocation, RouteRequest, runtimeContract } from '@platform/schema/contract';
import { buildContext } from '../context/create-context.ts';
import type { HandlerContext, SearchHit } from '../context/types.ts';
import type { PlatformFunction } from '../define-function.ts';
import type { MemoryState, StoredJob } from './memory-state.ts';
import { createMockBroker, type MockBroker, type MockBrokerOptions } from './mock-broker.ts';

type SearchBody = RouteRequest<(typeof runtimeContract)['dataSearch']>;

/** A search for the test context: its declaration and the hits it answers. */
export interface TestSearch {
  /** Whether the search declares `fullText`. @default true */
  readonly fullText?: boolean;
  /** The declared vector model; omit (with `dimensions`) for a search without a vector. */
  readonly model?: string;
  readonly dimensions?: number;
  readonly filters?: readonly string[];
  readonly hits: readonly SearchHit[] | ((options: SearchBody) => readonly SearchHit[]);
}

/** Options of {@link createTestContext}. Everything is optional. */
export interface TestContextOptions<Input = unknown>
  extends Omit<MockBrokerOptions, 'searches' | 'url' | 'token' | 'routes'> {
  readonly input?: Input;
  readonly job?: Invocation['job'];
  readonly http?: Invocation['http'];
  readonly integration?: Invocation['integration'];
  /** Declared searches with their answers. */
  readonly searches?: Readonly<Record<string, TestSearch>>;
  /** Declared email sender aliases. */
  readonly emailAliases?: readonly string[];
  /** @default 'development' */
  readonly environment?: 'development' | 'production';
  /** The pinned runtime SDK version. @default PLATFORM_SDK_VERSION */
  readonly sdkVersion?: string;
  /** @default 'req_test' */
  readonly requestId?: string;
  /** Replace single routes of the in-memory broker. */
  readonly routes?: MockBrokerOptions['routes'];
}

/** A handler context backed by an in-memory broker, plus what the handler did. */
export interface TestContext<Input = unknown> extends HandlerContext<Input> {
  /** The in-memory broker behind the context. */
  readonly broker: MockBroker;
  /** Tables by name (live arrays). */
  readonly tables: Readonly<Record<string, JsonObject[]>>;
  /** Emails sent (captured, never delivered). */
  readonly sentEmails: MemoryState['emails'];
  /** Notifications sent. */
  readonly sentNotifications: MemoryState['notifications'];
  /** Realtime broadcasts sent (`ctx.realtime.broadcast`), in order. */
  readonly broadcasts: MemoryState['broadcasts'];
  /** Jobs enqueued, with their payloads and options. */
  readonly enqueuedJobs: readonly StoredJob[];
  /** Log entries (after the run; secret values redacted). */
  readonly logs: MemoryState['logs'];
  /** Integration events emitted. */
  readonly emittedEvents: MemoryState['events'];
}

/**
 * An in-memory handler context for unit tests: tables are arrays with the broker's semantics,
 * files live in memory, emails, notifications, realtime broadcasts, jobs, events and logs are captured. No network.
 *
 * @example
 * ```ts
 * const ctx = createTestContext({ user: { id: 'u1' }, input: { title: 'Milk' }, data: { todos: [] } });
 * const todo = await saveTodo.run(ctx);
 * expect(ctx.tables.todos).toEqual([todo]);
 * ```
 */
export function createTestContext<Input = unknown>(
  options: TestContextOptions<Input> = {},
): TestContext<Input> {
  const searches = Object.fromEntries(
    Object.entries(options.searches ?? {}).map(([name, search]) => [
      name,
      (body: SearchBody) => [
        ...(typeof search.hits === 'function' ? search.hits(body) : search.hits),
      ],
    ]),
  );
  // Like platform dev, an emit in development delivers nothing (spec 6.1); in production it
  // counts the seeded subscribers.
  const emitDeliveries =
    options.emitDeliveries ??
    ((options.environment ?? 'development') === 'development' ? 0 : undefined);
  const broker = createMockBroker({
    ...options,
    integrationInvocation: options.integration ?? null,
    ...(emitDeliveries === undefined ? {} : { emitDeliveries }),
    searches,
    token: 'test-context-token',
  });
  const invocation = broker.invocation({
    requestId: options.requestId ?? 'req_test',
    environment: options.environment ?? 'development',
    input: ('input' in options ? options.input : {}) as Invocation['input'],
    job: options.job ?? null,
    http: options.http ?? null,
    integration: options.integration ?? null,
    ...(options.sdkVersion === undefined ? {} : { sdkVersion: options.sdkVersion }),
    declared: {
      secrets: Object.keys(options.secrets ?? {}),
      emailAliases: [...(options.emailAliases ?? [])],
      searches: Object.fromEntries(
        Object.entries(options.searches ?? {}).map(([name, s]) => [
          name,
          {
            fullText: s.fullText ?? true,
            model: s.model ?? null,
            dimensions: s.dimensions ?? null,
            filters: [...(s.filters ?? [])],
          },
        ]),
      ),
    },
  });
  // Like the broker, a test without input sends `{}`.
  const input = ('input' in options ? options.input : {}) as Input;
  const { context } = buildContext(invocation, input, broker.fetch);
  const { state } = broker;
  const extras: PropertyDescriptorMap = {
    broker: { value: broker },
    tables: { get: () => Object.fromEntries(state.tables) },
    sentEmails: { value: state.emails },
    sentNotifications: { value: state.notifications },
    broadcasts: { value: state.broadcasts },
    enqueuedJobs: { value: state.jobs },
    logs: { value: state.logs },
    emittedEvents: { value: state.events },
  };
  return Object.create(context, extras) as TestContext<Input>;
}

/**
 * Runs `fn` once against a fresh test context: input parsed with the schema, handler run, logs
 * flushed. Returns the result and the context to inspect.
 *
 * @example
 * ```ts
 * const { result, ctx } = await runFunction(saveTodo, { input: { title: 'Milk' }, data: { todos: [] } });
 * ```
 */
export async function runFunction<R>(
  fn: PlatformFunction<never, R> | PlatformFunction,
  options: TestContextOptions = {},
): Promise<{ result: Awaited<R>; ctx: TestContext }> {
  const ctx = createTestContext(options);
  const result = (await (fn as PlatformFunction).run(ctx)) as Awaited<R>;
  return { result, ctx };
}
