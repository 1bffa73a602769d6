import { featureSince, type Invocation } from '@platform/schema/contract';
import { createAi } from './ai.ts';
import { createData } from './data.ts';
import { createFiles } from './files.ts';
import { createIntegration, createIntegrations } from './integrations.ts';
import { createJobs } from './jobs.ts';
import { createEmail, createNotifications } from './messaging.ts';
import { createLogger, createSecrets, SecretMemory } from './secrets-log.ts';
import { type FetchLike, RuntimeClient, requireVersion } from './transport.ts';
import type { HandlerContext, HttpInfo, IntegrationInfo } from './types.ts';

/** A context and the hook that sends its buffered logs when the invocation ends. */
export interface BuiltContext<Input> {
  readonly context: HandlerContext<Input>;
  readonly flush: () => Promise<void>;
}

/**
 * Builds the handler context of one invocation: every member is a thin client of one contract
 * route, authorised by the invocation token. Members newer than the pinned SDK throw
 * `SDK_VERSION_UNSUPPORTED` when used.
 */
export function buildContext<Input>(
  invocation: Invocation,
  input: Input,
  fetch?: FetchLike,
): BuiltContext<Input> {
  const client = new RuntimeClient({
    brokerUrl: invocation.broker.url,
    token: invocation.broker.token,
    sdkVersion: invocation.sdkVersion,
    requestId: invocation.requestId,
    fetch,
  });
  const memory = new SecretMemory();
  const log = createLogger(client, memory);
  const pinned = invocation.sdkVersion;
  const http: HttpInfo | null =
    invocation.http === null ? null : Object.freeze({ ...invocation.http });
  const integration: IntegrationInfo | null =
    invocation.integration === null ? null : createIntegration(client, invocation.integration);
  const user = invocation.user === null ? null : Object.freeze({ id: invocation.user.id });
  const job = invocation.job === null ? null : Object.freeze({ ...invocation.job });

  const context = Object.defineProperties(
    {
      input,
      user,
      job,
      data: createData(client, invocation.declared),
      files: createFiles(client),
      ai: createAi(client),
      email: createEmail(client, invocation.declared),
      notifications: createNotifications(client),
      jobs: createJobs(client),
      integrations: createIntegrations(client),
      secrets: createSecrets(client, invocation.declared, memory),
      log: { debug: log.debug, info: log.info, warn: log.warn, error: log.error },
      requestId: invocation.requestId,
      environment: invocation.environment,
    },
    {
      http: {
        enumerable: true,
        get: () => {
          requireVersion(pinned, featureSince.http, 'ctx.http');
          return http;
        },
      },
      integration: {
        enumerable: true,
        get: () => {
          requireVersion(pinned, featureSince.integration, 'ctx.integration');
          return integration;
        },
      },
    },
  ) as HandlerContext<Input>;
  const frozen = Object.freeze(context);
  flushers.set(frozen, log.flush);
  return { context: frozen, flush: log.flush };
}

const flushers = new WeakMap<object, () => Promise<void>>();

/** Sends the buffered logs of a context built by {@link buildContext} (no-op for others). */
export async function flushContext(context: object): Promise<void> {
  let current: object | null = context;
  while (current !== null) {
    const flush = flushers.get(current);
    if (flush) return flush();
    current = Object.getPrototypeOf(current) as object | null;
  }
}
