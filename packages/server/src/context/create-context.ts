import { featureSince, type Invocation } from '@platform/schema/contract';
import { createAi } from './ai.ts';
import { createData } from './data.ts';
import { createFiles } from './files.ts';
import { createIntegration, createIntegrations } from './integrations.ts';
import { createJobs } from './jobs.ts';
import { createEmail, createNotifications } from './messaging.ts';
import { type BufferedLogger, createLogger, createSecrets, SecretMemory } from './secrets-log.ts';
import { type FetchLike, RuntimeClient, requireVersion } from './transport.ts';
import type {
  AiClient,
  DataClient,
  EmailClient,
  FilesClient,
  HandlerContext,
  HttpInfo,
  IntegrationInfo,
  IntegrationsClient,
  JobsClient,
  Logger,
  NotificationsClient,
  SecretsClient,
} from './types.ts';

/** A context and the hook that sends its buffered logs when the invocation ends. */
export interface BuiltContext<Input> {
  readonly context: HandlerContext<Input>;
  readonly flush: () => Promise<void>;
}

/** What a context's members are made from, and the members made so far. */
interface Members {
  readonly client: RuntimeClient;
  readonly sdkVersion: string;
  readonly declared: Invocation['declared'];
  readonly httpInfo: Invocation['http'];
  readonly integrationInfo: Invocation['integration'];
  memory?: SecretMemory;
  logger?: BufferedLogger;
  log?: Logger;
  http?: HttpInfo | null;
  integration?: IntegrationInfo | null;
  data?: DataClient;
  files?: FilesClient;
  ai?: AiClient;
  email?: EmailClient;
  notifications?: NotificationsClient;
  jobs?: JobsClient;
  integrations?: IntegrationsClient;
  secrets?: SecretsClient;
}

// A non-enumerable own property of the context, so contexts derived with `Object.create` (as
// `defineFunction` and the testing helpers make them) reach it through the prototype chain.
// It holds no token: the client keeps that in a private field.
const MEMBERS = Symbol('members');

function secretMemory(m: Members): SecretMemory {
  m.memory ??= new SecretMemory();
  return m.memory;
}

// Log lines redact the secret values this invocation has read, so both share one memory.
function logger(m: Members): BufferedLogger {
  m.logger ??= createLogger(m.client, secretMemory(m));
  return m.logger;
}

/**
 * The handler context of one invocation. `input`, `user`, `job`, `requestId` and `environment`
 * are plain properties; every other member is a thin client of one contract route, authorised
 * by the invocation token, made the first time the handler reads it (most handlers use one or
 * two) and returned again on later reads. Building all of them on every call, as own properties,
 * cost more than the rest of the host's work before the handler (docs/broker.md, "Measured").
 */
class InvocationContext<Input> implements HandlerContext<Input> {
  readonly input: Input;
  readonly user: { readonly id: string } | null;
  readonly job: HandlerContext['job'];
  readonly requestId: string;
  readonly environment: 'development' | 'production';
  declare readonly [MEMBERS]: Members;

  constructor(invocation: Invocation, input: Input, fetch: FetchLike | undefined) {
    this.input = input;
    this.user = invocation.user === null ? null : Object.freeze({ id: invocation.user.id });
    this.job = invocation.job === null ? null : Object.freeze({ ...invocation.job });
    this.requestId = invocation.requestId;
    this.environment = invocation.environment;
    const members: Members = {
      client: new RuntimeClient({
        brokerUrl: invocation.broker.url,
        token: invocation.broker.token,
        sdkVersion: invocation.sdkVersion,
        requestId: invocation.requestId,
        fetch,
      }),
      sdkVersion: invocation.sdkVersion,
      declared: invocation.declared,
      httpInfo: invocation.http,
      integrationInfo: invocation.integration,
    };
    Object.defineProperty(this, MEMBERS, { value: members });
  }

  get http(): HttpInfo | null {
    const m = this[MEMBERS];
    requireVersion(m.sdkVersion, featureSince.http, 'ctx.http');
    if (m.http === undefined)
      m.http = m.httpInfo === null ? null : Object.freeze({ ...m.httpInfo });
    return m.http;
  }

  get integration(): IntegrationInfo | null {
    const m = this[MEMBERS];
    requireVersion(m.sdkVersion, featureSince.integration, 'ctx.integration');
    if (m.integration === undefined) {
      const info = m.integrationInfo;
      m.integration = info === null ? null : createIntegration(m.client, info);
    }
    return m.integration;
  }

  get data(): DataClient {
    const m = this[MEMBERS];
    m.data ??= createData(m.client, m.declared);
    return m.data;
  }

  get files(): FilesClient {
    const m = this[MEMBERS];
    m.files ??= createFiles(m.client);
    return m.files;
  }

  get ai(): AiClient {
    const m = this[MEMBERS];
    m.ai ??= createAi(m.client);
    return m.ai;
  }

  get email(): EmailClient {
    const m = this[MEMBERS];
    m.email ??= createEmail(m.client, m.declared);
    return m.email;
  }

  get notifications(): NotificationsClient {
    const m = this[MEMBERS];
    m.notifications ??= createNotifications(m.client);
    return m.notifications;
  }

  get jobs(): JobsClient {
    const m = this[MEMBERS];
    m.jobs ??= createJobs(m.client);
    return m.jobs;
  }

  get integrations(): IntegrationsClient {
    const m = this[MEMBERS];
    m.integrations ??= createIntegrations(m.client);
    return m.integrations;
  }

  get secrets(): SecretsClient {
    const m = this[MEMBERS];
    m.secrets ??= createSecrets(m.client, m.declared, secretMemory(m));
    return m.secrets;
  }

  get log(): Logger {
    const m = this[MEMBERS];
    if (m.log === undefined) {
      const { debug, info, warn, error } = logger(m);
      m.log = Object.freeze({ debug, info, warn, error });
    }
    return m.log;
  }
}

/**
 * Builds the handler context of one invocation (see {@link InvocationContext}). Members newer
 * than the pinned SDK throw `SDK_VERSION_UNSUPPORTED` when used.
 */
export function buildContext<Input>(
  invocation: Invocation,
  input: Input,
  fetch?: FetchLike,
): BuiltContext<Input> {
  const context = Object.freeze(new InvocationContext(invocation, input, fetch));
  return { context, flush: () => flushContext(context) };
}

/** Sends the buffered logs of a context built by {@link buildContext} (no-op for others). */
export async function flushContext(context: object): Promise<void> {
  const members = (context as { [MEMBERS]?: Members })[MEMBERS];
  await members?.logger?.flush();
}
