import { featureSince, type Invocation, Redactor } from '@platform/schema/contract';
import { createAi } from './ai.ts';
import { createData } from './data.ts';
import { createFiles } from './files.ts';
import { createIntegration, createIntegrations } from './integrations.ts';
import { createJobs } from './jobs.ts';
import { createEmail, createNotifications, createRealtime } from './messaging.ts';
import { type BufferedLogger, createLogger, createSecrets } from './secrets-log.ts';
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
  RealtimeClient,
  SecretsClient,
} from './types.ts';

/** A context and the hook that sends its buffered logs when the invocation ends. */
export interface BuiltContext<Input> {
  readonly context: HandlerContext<Input>;
  readonly flush: () => Promise<void>;
}

/** The members a context makes on first use. */
interface Made {
  http: HttpInfo | null;
  integration: IntegrationInfo | null;
  data: DataClient;
  files: FilesClient;
  ai: AiClient;
  email: EmailClient;
  notifications: NotificationsClient;
  realtime: RealtimeClient;
  jobs: JobsClient;
  integrations: IntegrationsClient;
  secrets: SecretsClient;
  log: Logger;
}

/** What a context's members are made from, and the members made so far. */
interface Members {
  readonly client: RuntimeClient;
  readonly invocation: Pick<Invocation, 'sdkVersion' | 'declared' | 'http' | 'integration'>;
  readonly made: Partial<Made>;
  redactor?: Redactor;
  logger?: BufferedLogger;
}

// A non-enumerable own property of the context, so contexts derived with `Object.create` (as
// `defineFunction` and the testing helpers make them) reach it through the prototype chain.
// It holds no token: the client keeps that in a private field.
const MEMBERS = Symbol('members');

/** The member `key` of `context`, made by `make` on the first read. */
function once<K extends keyof Made>(
  context: object,
  key: K,
  make: (members: Members) => Made[K],
): Made[K] {
  const members = (context as { [MEMBERS]: Members })[MEMBERS];
  if (!(key in members.made)) members.made[key] = make(members);
  return members.made[key] as Made[K];
}

function secretsRead(m: Members): Redactor {
  m.redactor ??= new Redactor();
  return m.redactor;
}

// Log lines redact the secret values this invocation has read, so both share one redactor.
function logger(m: Members): BufferedLogger {
  m.logger ??= createLogger(m.client, secretsRead(m));
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
    const client = new RuntimeClient({
      brokerUrl: invocation.broker.url,
      token: invocation.broker.token,
      sdkVersion: invocation.sdkVersion,
      requestId: invocation.requestId,
      fetch,
    });
    const { sdkVersion, declared, http, integration } = invocation;
    const members: Members = {
      client,
      invocation: { sdkVersion, declared, http, integration },
      made: {},
    };
    Object.defineProperty(this, MEMBERS, { value: members });
  }

  get http(): HttpInfo | null {
    requireVersion(this[MEMBERS].invocation.sdkVersion, featureSince.http, 'ctx.http');
    return once(this, 'http', ({ invocation: { http } }) =>
      http === null ? null : Object.freeze({ ...http }),
    );
  }

  get integration(): IntegrationInfo | null {
    const { sdkVersion } = this[MEMBERS].invocation;
    requireVersion(sdkVersion, featureSince.integration, 'ctx.integration');
    return once(this, 'integration', ({ client, invocation: { integration } }) =>
      integration === null ? null : createIntegration(client, integration),
    );
  }

  get data(): DataClient {
    return once(this, 'data', (m) => createData(m.client, m.invocation.declared));
  }

  get files(): FilesClient {
    return once(this, 'files', (m) => createFiles(m.client));
  }

  get ai(): AiClient {
    return once(this, 'ai', (m) => createAi(m.client));
  }

  get email(): EmailClient {
    return once(this, 'email', (m) => createEmail(m.client, m.invocation.declared));
  }

  get notifications(): NotificationsClient {
    return once(this, 'notifications', (m) => createNotifications(m.client));
  }

  get realtime(): RealtimeClient {
    return once(this, 'realtime', (m) => createRealtime(m.client));
  }

  get jobs(): JobsClient {
    return once(this, 'jobs', (m) => createJobs(m.client));
  }

  get integrations(): IntegrationsClient {
    return once(this, 'integrations', (m) => createIntegrations(m.client));
  }

  get secrets(): SecretsClient {
    return once(this, 'secrets', (m) =>
      createSecrets(m.client, m.invocation.declared, secretsRead(m)),
    );
  }

  get log(): Logger {
    return once(this, 'log', (m) => {
      const { debug, info, warn, error } = logger(m);
      return Object.freeze({ debug, info, warn, error });
    });
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
