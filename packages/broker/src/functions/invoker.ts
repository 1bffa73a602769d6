import { errorFromResponse, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import {
  type Declarations,
  type FunctionAccess,
  type Invocation,
  REQUEST_ID_HEADER,
  type Redactor,
} from '@platform/schema/contract';
import { hostRoutes } from '@platform/schema/routes';
import { type Caller, contextUser, systemCaller } from '../kernel/caller.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import type { FunctionProcess } from './function-process.ts';
import type { FileGrant, InvocationTokens } from './invocation-tokens.ts';

/** How a call reached the broker; decides which `access` values admit it. */
export type CallOrigin = 'browser' | 'route' | 'direct' | 'platform';

/**
 * How a successful call reached a Function, as the development verification counts it
 * (docs/broker.md, "Verification"): `browser` (a browser action or an app route), `direct`
 * (`platform invoke`), `job` (a queue's job), `cron` (a cron run), `inbound` (an inbound email
 * delivery), `event` (an integration event delivery to a slot's handler) or `contract` (an integration operation, sync, webhook, exchange or refresh call,
 * which verification never requires and does not record).
 */
export type ExerciseWay = 'browser' | 'direct' | 'job' | 'cron' | 'inbound' | 'event' | 'contract';

/** A Function the broker can run. */
export interface DeployedFunction {
  readonly name: string;
  readonly access: FunctionAccess;
  readonly process: FunctionProcess;
  /**
   * The redaction of this Function's printed output and errors: the broker's secrets (it has
   * {@link InvokerOptions.redactor} as its parent) plus the credential values of its calls, each
   * from the call's start until {@link CREDENTIAL_REDACTION_GRACE_MS} after its end.
   * @default {@link InvokerOptions.redactor}, without the calls' credentials
   */
  readonly redactor?: Redactor | undefined;
  /** Time limit of one call. @default 60000 */
  readonly timeoutMs?: number;
}

/** One call of a Function as {@link FunctionInvoker.onCall} reports it: never input or output. */
export interface FinishedCall {
  readonly name: string;
  readonly requestId: string;
  readonly origin: CallOrigin;
  /** ISO 8601 time the call began. */
  readonly at: string;
  readonly durationMs: number;
  readonly ok: boolean;
  /** The error code of a failed call. */
  readonly code: string | undefined;
}

/** One call. */
export interface CallRequest {
  readonly requestId: string;
  readonly input: unknown;
  /** The identity of the browser session or token; system Functions always run as system. */
  readonly caller: Caller;
  readonly origin: CallOrigin;
  /**
   * How verification counts a successful call of a `platform` origin (`job`, `cron`, `inbound`,
   * `event`, `contract`). @default `browser` for browser and route calls, `direct` for direct ones,
   * `contract` for other platform calls
   */
  readonly via?: ExerciseWay;
  readonly http?: Invocation['http'];
  readonly signal?: AbortSignal;
  // A queue consumer's `ctx.job` and the attempt's own time limit.
  /** `{ id, queue, attempt }` when a queue consumer runs for a job. @default null */
  readonly job?: Invocation['job'];
  /** Overrides the Function's time limit for this call (a queue's `timeoutSeconds`). */
  readonly timeoutMs?: number;
  /**
   * The job's delegated file read grant, when a queue consumer runs for a job enqueued with
   * `files: { read }`. It travels in the invocation token, so the runtime routes check the
   * Function's file reads against it. @default none
   */
  readonly fileGrant?: FileGrant | undefined;
  /**
   * A browser's call that came by a custom domain: its data authorization ends
   * `limits.customDomainDataAuthorizationSeconds` after the call began and is not refreshed
   * (spec 2.4). @default false
   */
  readonly customDomain?: boolean;
  /**
   * The integration invocation of a provider's operation, sync or webhook Function: the
   * connection, the trigger and, for an operation, the consumer. @default null
   */
  readonly integration?: Invocation['integration'];
  /**
   * The connection's credential values: the Function reads them through `ctx.secrets` under
   * their declared names during this call only, and they are redacted from its printed output
   * and its errors like secrets. @default none
   */
  readonly credentials?: Readonly<Record<string, string | null>> | undefined;
}

/** What every invocation needs besides the call itself. */
export interface InvokerOptions {
  readonly tokens: InvocationTokens;
  /** The broker's origin as the Function sees it (`http://127.0.0.1:<port>`). */
  readonly brokerUrl: string;
  /** `runtime.sdk.version` from platform.yaml. */
  readonly sdkVersion: string;
  readonly environment: 'development' | 'production';
  readonly declared: Declarations;
  /**
   * Redacts known secret values from the errors Functions answer, before they reach a caller,
   * a job's stored error or a log. @default no redaction
   */
  readonly redactor?: Redactor | undefined;
  /** What a custom-domain call's data authorization is timed by. @default the system clock */
  readonly clock?: Clock;
}

/** The members of an invocation that are the same for every call of one Function. */
type FixedMembers = Pick<Invocation, 'function' | 'sdkVersion' | 'environment' | 'declared'>;

/**
 * How long a token may outlive its call's time limit at most. It is revoked as soon as the call
 * ends; the expiry only bounds a token whose end was never reported.
 */
const TOKEN_GRACE_MS = 30_000;

/**
 * How long a call's credential values stay redacted from its Function's output after the call
 * ended: a line printed during the call may still be on its way through the pipe, and a
 * Function may print a value it kept a little later (docs/integrations.md).
 */
export const CREDENTIAL_REDACTION_GRACE_MS =
  limits.integration.credentialRedactionGraceSeconds * 1000;

/**
 * Runs calls of declared Functions: enforces `access` (`user` needs a signed-in caller,
 * `public` takes any, `system` never from a browser or a route), mints the invocation token,
 * posts the invocation of docs/runtime-contract.md 1.1 to the Function's own process and hands
 * back the host's answer: a 2xx `Response` to stream through unchanged, or a thrown
 * `PlatformError` from the host's envelope.
 */
export class FunctionInvoker {
  readonly #options: InvokerOptions;
  readonly #functions = new Map<string, DeployedFunction>();
  readonly #listeners = new Set<(call: FinishedCall) => void>();
  readonly #fixed = new Map<string, string>();
  // The ways each Function succeeded since its last registration (its code's last change). A
  // broker restart registers every Function again, so keeping this in memory stays consistent.
  readonly #exercised = new Map<string, Set<ExerciseWay>>();

  constructor(options: InvokerOptions) {
    this.#options = options;
  }

  /**
   * The members of `name`'s invocations that no call changes, serialised once as the inside of
   * a JSON object: with `declared` they are most of an invocation's bytes.
   */
  #fixedMembers(name: string): string {
    let json = this.#fixed.get(name);
    if (json === undefined) {
      const { declared, sdkVersion, environment } = this.#options;
      const fixed: FixedMembers = { function: name, sdkVersion, environment, declared };
      json = JSON.stringify(fixed).slice(1, -1);
      this.#fixed.set(name, json);
    }
    return json;
  }

  /** Adds or replaces a Function (the caller stops a replaced process). */
  register(fn: DeployedFunction): void {
    this.#functions.set(fn.name, fn);
    // New code: what ran before no longer verifies it.
    this.#exercised.delete(fn.name);
  }

  /**
   * The ways `name` succeeded since its code last changed (its last {@link register}), without
   * contract calls; empty when it has not run.
   */
  exercised(name: string): ReadonlySet<ExerciseWay> {
    return this.#exercised.get(name) ?? new Set();
  }

  /** The registered Function, if any. */
  get(name: string): DeployedFunction | undefined {
    return this.#functions.get(name);
  }

  /** Every registered Function. */
  list(): DeployedFunction[] {
    return [...this.#functions.values()];
  }

  /** Removes a Function (the caller stops its process). */
  unregister(name: string): void {
    this.#functions.delete(name);
    this.#exercised.delete(name);
  }

  /** Runs one call and returns the host's successful answer. */
  /**
   * Calls `listener` when each call ends (the answer's head, or the failure): the console's
   * recent calls and the Function name of a request's line. Until the returned function runs.
   */
  onCall(listener: (call: FinishedCall) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async call(name: string, request: CallRequest): Promise<Response> {
    const started = performance.now();
    const at = new Date().toISOString();
    const tell = (ok: boolean, code: string | undefined) => {
      const call: FinishedCall = {
        name,
        requestId: request.requestId,
        origin: request.origin,
        at,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ok,
        code,
      };
      for (const listener of this.#listeners) {
        try {
          listener(call);
        } catch {
          // A listener's failure is the console's, never the caller's.
        }
      }
    };
    try {
      const response = await this.#call(name, request);
      tell(true, undefined);
      return response;
    } catch (error) {
      tell(false, error instanceof PlatformError ? error.code : 'INTERNAL');
      throw error;
    }
  }

  async #call(name: string, request: CallRequest): Promise<Response> {
    const fn = this.#functions.get(name);
    if (!fn) {
      throw new PlatformError({
        code: 'FUNCTION_NOT_FOUND',
        message: `No Function named "${name}" is declared.`,
        details: { name },
      });
    }
    const caller = admit(fn, request);
    const timeoutMs = request.timeoutMs ?? fn.timeoutMs ?? 60_000;
    const { tokens, declared, sdkVersion } = this.#options;
    const token = tokens.mint(
      {
        requestId: request.requestId,
        functionName: fn.name,
        caller,
        sdkVersion,
        secrets: declared.secrets,
        emailAliases: declared.emailAliases,
        fileGrant: request.fileGrant,
        ...(request.customDomain
          ? {
              dataExpiresAt:
                (this.#options.clock ?? systemClock).now().getTime() +
                limits.customDomainDataAuthorizationSeconds * 1000,
            }
          : {}),
        ...(request.credentials ? { credentials: request.credentials } : {}),
        ...(request.integration
          ? {
              integration: {
                connectionId: request.integration.connectionId,
                trigger: request.integration.trigger,
              },
            }
          : {}),
      },
      timeoutMs + TOKEN_GRACE_MS,
    );
    const perCall: Omit<Invocation, keyof FixedMembers> = {
      requestId: request.requestId,
      input: (request.input ?? null) as Invocation['input'],
      user: contextUser(caller),
      job: request.job ?? null,
      http: request.http ?? null,
      integration: request.integration ?? null,
      broker: { url: this.#options.brokerUrl, token },
    };
    const perCallJson = JSON.stringify(perCall);
    const unhold = holdCredentials(fn, request.credentials);
    // The token ends with the call (the SDK flushes its logs before answering): module-level
    // code that kept a context cannot act as this caller during later calls.
    const revoke = () => {
      tokens.revoke(token);
      unhold();
    };
    let response: Response;
    try {
      response = await fn.process.request({
        method: 'POST',
        path: hostRoutes.invoke.path,
        headers: { 'content-type': 'application/json', [REQUEST_ID_HEADER]: request.requestId },
        body: `${perCallJson.slice(0, -1)},${this.#fixedMembers(fn.name)}}`,
        timeoutMs,
        onEnd: revoke,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      revoke();
      throw error;
    }
    if (response.ok) {
      this.#record(fn, request);
      return response;
    }
    throw this.#redact(fn, await errorFromResponse(response));
  }

  #record(fn: DeployedFunction, request: CallRequest): void {
    // A call that began on code since replaced verifies nothing about the new code.
    if (this.#functions.get(fn.name) !== fn) return;
    const way: ExerciseWay =
      request.via ??
      (request.origin === 'direct'
        ? 'direct'
        : request.origin === 'platform'
          ? 'contract'
          : 'browser');
    if (way === 'contract' || request.integration) return;
    const ways = this.#exercised.get(fn.name) ?? new Set<ExerciseWay>();
    this.#exercised.set(fn.name, ways.add(way));
  }

  #redact(fn: DeployedFunction, error: PlatformError): PlatformError {
    const redactor = fn.redactor ?? this.#options.redactor;
    if (!redactor) return error;
    const message = redactor.text(error.message);
    const details = error.details === undefined ? undefined : redactor.value(error.details);
    if (message === error.message && details === error.details) return error;
    return new PlatformError({
      code: error.code,
      message,
      status: error.status,
      retryable: error.retryable,
      details,
      requestId: error.requestId,
    });
  }
}

// Adds a call's credential values to its Function's redaction; the returned function, called
// when the call ends, keeps them there for the grace period more.
function holdCredentials(
  fn: DeployedFunction,
  credentials: CallRequest['credentials'],
): () => void {
  if (!credentials || !fn.redactor) return () => {};
  const values = Object.values(credentials).filter((value): value is string => value !== null);
  const release = fn.redactor.hold(values);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    setTimeout(release, CREDENTIAL_REDACTION_GRACE_MS).unref();
  };
}

function admit(fn: DeployedFunction, request: CallRequest): Caller {
  if (fn.access === 'system') {
    if (request.origin === 'browser' || request.origin === 'route') {
      throw new PlatformError({
        code: 'FUNCTION_NOT_CALLABLE',
        message: `Function "${fn.name}" is a system Function; browsers and routes cannot call it.`,
        details: { name: fn.name },
      });
    }
    // System Functions run with the app's system identity: auth.uid() stays null; an
    // integration invocation carries its connection (auth.connection_id()).
    return systemCaller(request.caller.kind === 'system' ? request.caller.connectionId : undefined);
  }
  if (fn.access === 'user' && request.caller.kind !== 'user') {
    throw new PlatformError({
      code: 'AUTH_REQUIRED',
      message: `Function "${fn.name}" needs a signed-in user.`,
    });
  }
  return request.caller;
}
