import { type JsonObject, type JsonValue, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import {
  type ContractRoute,
  encodeTextFrames,
  type RuntimeRouteName,
  runtimeContract,
  supports,
  TEXT_FRAMES_CONTENT_TYPE,
} from '@platform/schema/contract';
import type { Hono } from 'hono';
import type { AiService } from '../ai/ai-service.ts';
import type { DataService } from '../data/data-service.ts';
import type { FileService } from '../files/file-service.ts';
import type { InvocationGrant, InvocationTokens } from '../functions/invocation-tokens.ts';
import { readBearer } from '../http/bearer.ts';
import { bodyLimits, parseWith, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { AppIntegrationCalls, AppIntegrationEmit } from '../integrations/app-integrations.ts';
import type { JobService } from '../jobs/job-service.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import type { LogSink } from '../logs/log-sink.ts';
import type { Outbox } from '../outbox/outbox.ts';
import type { PushService } from '../push/push-service.ts';
import type { Realtime } from '../realtime/realtime-feature.ts';
import type { SearchService } from '../search/search-service.ts';
import type { SecretSource } from '../secrets/secret-store.ts';

/** The services behind the runtime routes. */
export interface RuntimeServices {
  readonly tokens: InvocationTokens;
  /** What a custom-domain call's data authorization is checked against. @default the system clock */
  readonly clock?: Clock;
  readonly data: DataService;
  readonly files: FileService;
  readonly secrets: SecretSource;
  readonly outbox: Outbox;
  readonly logs: LogSink;
  /** `data.search`; absent when platform.yaml declares none (every name is then undeclared). */
  readonly search?: SearchService;
  /** `ctx.jobs`. */
  readonly jobs?: JobService | undefined;
  /** `ctx.ai`; without it the AI routes answer `FEATURE_NOT_AVAILABLE`. */
  readonly ai?: AiService | undefined;
  /** `ctx.notifications`; without it the route answers `FEATURE_NOT_AVAILABLE`. */
  readonly push?: PushService | undefined;
  /** `ctx.realtime`; without it the route answers `FEATURE_NOT_AVAILABLE`. */
  readonly realtime?: Realtime | undefined;
  /**
   * `ctx.integrations.use(slot).call(...)` of this app; without it the route answers
   * `FEATURE_NOT_AVAILABLE`.
   */
  readonly integrations?: AppIntegrationCalls | undefined;
  /**
   * `ctx.integration.emit(...)` of this app's integration Functions: the number of new
   * deliveries. Without it the route answers `FEATURE_NOT_AVAILABLE`.
   */
  readonly integrationEmit?: AppIntegrationEmit | undefined;
}

type Body<R> = R extends ContractRoute<infer Q> ? ReturnType<Q['parse']> : never;

interface RouteContext {
  readonly grant: InvocationGrant;
  readonly params: Readonly<Record<string, string>>;
  /** Aborted when the caller goes away (streaming routes stop their source). */
  readonly signal: AbortSignal;
}

type Handler<R> = (body: Body<R>, ctx: RouteContext) => Promise<unknown>;

/** A contract route this broker does not serve: a clear error, never a fake success. */
const notAvailable = (message: string) => async (): Promise<never> => {
  throw new PlatformError({ code: 'FEATURE_NOT_AVAILABLE', message });
};

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const bytes = (text: string): Buffer => Buffer.from(text, 'base64');

/**
 * Mounts every route of the runtime contract (`runtimeContract` of `@platform/schema/contract`):
 * the invocation token is checked, the route's `since` is compared with the Function's pinned
 * SDK, the JSON body is read with its size limit and parsed with the contract's schema, then the
 * service runs as the invocation's caller. Features this broker does not serve answer
 * `FEATURE_NOT_AVAILABLE` (501), never a fake success.
 */
export function mountRuntimeRoutes(app: Hono<BrokerEnv>, services: RuntimeServices): void {
  const { data, files, secrets, outbox, logs, jobs, ai, push } = services;
  const noAi = notAvailable('AI is not available: this broker was started without an AI service.');
  const handlers: { [N in RuntimeRouteName]: Handler<(typeof runtimeContract)[N]> } = {
    dataList: async (body, { grant, params }) => ({
      rows: await data.list(grant.caller, params.table!, body),
    }),
    dataGetById: async (body, { grant, params }) => ({
      row: await data.getById(grant.caller, params.table!, body.id, { select: body.select }),
    }),
    dataCreate: async (body, { grant, params }) => ({
      row: await data.create(grant.caller, params.table!, body.row),
    }),
    dataUpdateById: async (body, { grant, params }) => ({
      row: await data.updateById(grant.caller, params.table!, body.id, body.patch),
    }),
    dataSearch: async (body, { grant, params }) =>
      services.search
        ? services.search.search(grant.caller, params.name!, body)
        : Promise.reject(
            new PlatformError({
              code: 'SEARCH_NOT_DECLARED',
              message: `No search named "${params.name}" is declared: platform.yaml has no data.search (docs/search.md).`,
              details: { search: params.name ?? '' },
            }),
          ),
    filesUpload: async (body, { grant }) => ({
      file: await files.upload(grant.caller, {
        data: bytes(body.data),
        name: body.name,
        contentType: body.contentType,
      }),
    }),
    filesDownload: async (body, { grant }) => {
      await files.checkGrantedRead(grant.fileGrant, body.ref);
      const { file, data: content } = await files.download(grant.caller, body.ref);
      return { file, data: base64(content) };
    },
    filesReplace: async (body, { grant }) => ({
      file: await files.replace(grant.caller, body.ref, {
        data: bytes(body.data),
        name: body.name,
        contentType: body.contentType,
      }),
    }),
    filesRemove: async (body, { grant }) => {
      await files.remove(grant.caller, body.ref);
      return { ok: true };
    },
    filesInfo: async (body, { grant }) => {
      await files.checkGrantedRead(grant.fileGrant, body.ref);
      return { file: await files.info(grant.caller, body.ref) };
    },
    aiGenerateText: ai
      ? async (body, { grant, signal }) => ai.generateText(body, { grant, signal })
      : noAi,
    aiStreamText: ai
      ? async (body, { grant, signal }) =>
          new Response(encodeTextFrames(await ai.streamText(body, { grant, signal })), {
            headers: { 'content-type': TEXT_FRAMES_CONTENT_TYPE },
          })
      : noAi,
    aiGenerateObject: ai
      ? async (body, { grant, signal }) => ai.generateObject(body, { grant, signal })
      : noAi,
    aiGenerateImage: ai
      ? async (body, { grant, signal }) => ai.generateImage(body, { grant, signal })
      : noAi,
    emailSend: async (body, { grant }) =>
      outbox.capture(body, grant.emailAliases, {
        requestId: grant.requestId,
        functionName: grant.functionName,
      }),
    notificationsSend: push
      ? async (body) => push.send(body)
      : notAvailable(
          'Notifications are not available: this broker was started without a push service.',
        ),
    realtimeBroadcast: services.realtime
      ? async (body) =>
          (services.realtime as Realtime).broadcast(body.channel, body.event, body.payload)
      : notAvailable('Realtime is not available: this broker was started without it.'),
    jobsEnqueue: jobs
      ? async (body, { grant, params }) => jobs.enqueue(params.queue!, body, grant.caller)
      : notAvailable('Jobs are not available: this broker was started without a job service.'),
    jobsGet: jobs
      ? async (body) => ({ job: await jobs.get(body.id) })
      : notAvailable('Jobs are not available: this broker was started without a job service.'),
    integrationsCall: services.integrations
      ? async (body, { grant, params, signal }) => ({
          output: await (services.integrations as AppIntegrationCalls)({
            caller: grant.caller,
            slot: params.slot ?? '',
            operation: body.operation,
            input: body.input as JsonValue,
            requestId: grant.requestId,
            signal,
          }),
        })
      : notAvailable(
          'Integrations are not available: this broker was started without the organisation’s integrations.',
        ),
    integrationEmit: services.integrationEmit
      ? async (body, { grant }) => ({
          deliveries: await (services.integrationEmit as AppIntegrationEmit)(grant.integration, {
            type: body.type,
            id: body.id,
            data: body.data as JsonObject,
          }),
        })
      : notAvailable(
          'Integration events are not available: this broker was started without the organisation’s integrations.',
        ),
    secretsGet: async (body, { grant }) => ({
      value:
        grant.credentials && Object.hasOwn(grant.credentials, body.name)
          ? (grant.credentials[body.name] ?? null)
          : await secrets.get(body.name, grant.secrets),
    }),
    log: async (body, { grant }) => {
      for (const entry of body.entries) {
        logs.write({
          at: entry.at,
          level: entry.level,
          message: entry.message,
          fields: entry.fields,
          requestId: grant.requestId,
          functionName: grant.functionName,
        });
      }
      return { ok: true };
    },
  };

  for (const name of Object.keys(runtimeContract) as RuntimeRouteName[]) {
    const route = runtimeContract[name] as ContractRoute;
    const handler = handlers[name] as Handler<ContractRoute>;
    const maxBytes =
      name === 'filesUpload' || name === 'filesReplace'
        ? bodyLimits.files
        : name.startsWith('ai')
          ? bodyLimits.ai
          : bodyLimits.json;
    app.on(route.method, route.path, async (c) => {
      const grant = services.tokens.verify(readBearer(c.req.header('authorization')) ?? undefined);
      if (!grant) {
        throw new PlatformError({
          code: 'INVOCATION_TOKEN_INVALID',
          message: 'The invocation token is missing, expired or unknown.',
        });
      }
      if (
        grant.dataExpiresAt !== undefined &&
        name.startsWith('data') &&
        (services.clock ?? systemClock).now().getTime() >= grant.dataExpiresAt
      ) {
        throw new PlatformError({
          code: 'AUTH_REQUIRED',
          message: `This call's data authorization has expired: a browser's call on a custom domain keeps its original authorization, which lasts ${limits.customDomainDataAuthorizationSeconds} seconds and is not refreshed. Finish the data work sooner, or move it to a job.`,
        });
      }
      if (!supports(grant.sdkVersion, route.since)) {
        throw new PlatformError({
          code: 'SDK_VERSION_UNSUPPORTED',
          message: `${route.name} needs runtime SDK ${route.since}; platform.yaml pins ${grant.sdkVersion}.`,
          details: { since: route.since, pinned: grant.sdkVersion },
        });
      }
      const body = parseWith(route.request, await readJsonBody(c.req.raw, { maxBytes }));
      const result = await handler(body as never, {
        grant,
        params: c.req.param(),
        signal: c.req.raw.signal,
      });
      // Streaming routes answer their own Response; everything else is JSON.
      return result instanceof Response ? result : c.json(result as object);
    });
  }
}
