import type { FunctionAccess } from '@platform/schema/contract';

/**
 * The interface apps augment to type their Functions once. `platform types` (the broker CLI)
 * writes this augmentation from `platform.yaml` and each Function's input schema and handler
 * result; it can also be written by hand. Each entry has the Function's `input`, its JSON
 * `result` and optionally its `access`; `system` Functions are not callable from the browser and
 * are left out of {@link FunctionName}.
 *
 * @example
 * ```ts
 * declare module '@platform/browser' {
 *   interface Register {
 *     functions: {
 *       echo: { input: { text: string }; result: { text: string }; access: 'public' };
 *       nightlyReport: { input: { source: 'platform.cron' }; result: null; access: 'system' };
 *     };
 *   }
 * }
 * const { text } = await platform.functions.call('echo', { text: 'hi' }); // text: string
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: an empty interface is what users augment.
export interface Register {}

/** The shape of one entry of `Register['functions']`. */
export interface FunctionSpec {
  /** The Function's input, as its input schema parses it. */
  readonly input: unknown;
  /** The Function's result after JSON serialisation. */
  readonly result: unknown;
  /** The manifest's `access` of the Function. */
  readonly access?: FunctionAccess;
}

/** Every Function known to the types: the registered ones, or any name when none are. */
export type RegisteredFunctions = Register extends {
  functions: infer F extends Record<string, FunctionSpec>;
}
  ? F
  : { [name: string]: { input: unknown; result: unknown } };

/**
 * The name of a Function a browser may call: every registered Function except `system` ones.
 *
 * @example
 * ```ts
 * const name: FunctionName = 'echo';
 * ```
 */
export type FunctionName = {
  [K in keyof RegisteredFunctions]: RegisteredFunctions[K] extends { access: 'system' } ? never : K;
}[keyof RegisteredFunctions] &
  string;

/**
 * The input type of Function `N`.
 *
 * @example
 * ```ts
 * const input: FunctionInput<'echo'> = { text: 'hi' };
 * ```
 */
export type FunctionInput<N extends FunctionName> = RegisteredFunctions[N]['input'];

/**
 * The result type of Function `N`.
 *
 * @example
 * ```ts
 * let last: FunctionResult<'echo'> | undefined;
 * ```
 */
export type FunctionResult<N extends FunctionName> = RegisteredFunctions[N]['result'];

/**
 * The signed-in user (spec 2.1).
 *
 * @example
 * ```ts
 * const user: CurrentUser | null = await platform.auth.currentUser();
 * ```
 */
export interface CurrentUser {
  readonly id: string;
  readonly displayName?: string;
  readonly email?: string;
}

/**
 * Per-call options of {@link PlatformFunctions.call} and {@link PlatformFunctions.stream}.
 *
 * @example
 * ```ts
 * await platform.functions.call('echo', input, { signal: controller.signal, timeoutMs: 5_000 });
 * ```
 */
export interface CallOptions {
  /** Aborts the call; it then fails with `PlatformError` code `ABORTED`. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds until the call fails with `TIMEOUT`. For `call` this covers the whole
   * response; for `stream` only the wait for the response to start.
   * @default the platform's `timeoutMs` (30 000)
   */
  readonly timeoutMs?: number | undefined;
}

/**
 * A Function's streamed bytes: a `ReadableStream` that is also async-iterable. Cancelling it
 * (or leaving a `for await` loop early) aborts the HTTP request. Failures arrive as a
 * `PlatformError` from the read.
 *
 * @example
 * ```ts
 * for await (const chunk of platform.functions.stream('story', { topic })) {
 *   output.append(decoder.decode(chunk, { stream: true }));
 * }
 * ```
 */
export type PlatformStream = ReadableStream<Uint8Array> & AsyncIterable<Uint8Array>;

/**
 * `platform.auth`: who is signed in, and where to sign in.
 *
 * @example
 * ```ts
 * const user = await platform.auth.currentUser();
 * if (!user) signInLink.href = platform.auth.signInUrl();
 * ```
 */
export interface PlatformAuth {
  /**
   * The signed-in user, or `null` when signed out. Fails with a retryable `PlatformError`
   * when the session broker cannot answer (a failure is never reported as signed out).
   */
  currentUser(): Promise<CurrentUser | null>;
  /**
   * The URL of the central sign-in, returning to `returnTo` afterwards.
   * @param returnTo - where to come back to; defaults to the current page
   */
  signInUrl(returnTo?: string): string;
}

/**
 * `platform.functions`: call the app's Functions. There is no search method in the browser.
 *
 * @example
 * ```ts
 * const todo = await platform.functions.call('getTodo', { id });
 * ```
 */
export interface PlatformFunctions {
  /**
   * Calls Function `name` with JSON `input` and resolves with its result. Failures are
   * `PlatformError`s with the code, message and details the Function or the broker gave
   * (for example `AUTH_REQUIRED`, `FUNCTION_NOT_CALLABLE`, `TODO_NOT_FOUND`).
   */
  call<N extends FunctionName>(
    name: N,
    input: FunctionInput<N>,
    options?: CallOptions,
  ): Promise<FunctionResult<N>>;
  /** Calls a streaming Function `name` and returns its bytes as they arrive. */
  stream<N extends FunctionName>(
    name: N,
    input: FunctionInput<N>,
    options?: CallOptions,
  ): PlatformStream;
}

/**
 * The browser SDK: `auth` and `functions`.
 *
 * @example
 * ```ts
 * const app: Platform = createPlatform({ appUrl: 'https://todos.example.app' });
 * ```
 */
export interface Platform {
  readonly auth: PlatformAuth;
  readonly functions: PlatformFunctions;
}

/**
 * Options of {@link createPlatform}.
 *
 * @example
 * ```ts
 * createPlatform({ appUrl: 'https://todos.example.app', timeoutMs: 10_000 });
 * ```
 */
export interface PlatformOptions {
  /**
   * The app's origin; the session broker and Functions are under it.
   * @default the page's origin (`location.origin`), read on first use
   */
  readonly appUrl?: string | URL | undefined;
  /**
   * Default timeout of Function calls in milliseconds.
   * @default 30000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Timeout of one session request in milliseconds; a timed-out refresh is an error, never a
   * sign-out.
   * @default 10000
   */
  readonly sessionTimeoutMs?: number | undefined;
  /**
   * The `fetch` to use.
   * @default the global `fetch`, looked up on every request
   */
  readonly fetch?: typeof fetch | undefined;
  /**
   * The clock, in epoch milliseconds.
   * @default Date.now
   */
  readonly now?: (() => number) | undefined;
}
