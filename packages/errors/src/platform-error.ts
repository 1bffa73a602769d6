import { type ErrorCode, errorStatus, isErrorCode, retryableCodes } from './codes.ts';
import type { JsonObject } from './json.ts';

/** A code of the catalog, or a code a Function chose itself (for example `TODO_NOT_FOUND`). */
export type PlatformErrorCode = ErrorCode | (string & {});

/** What {@link PlatformError} is built from. */
export interface PlatformErrorInit<Code extends PlatformErrorCode = PlatformErrorCode> {
  /** Stable, upper-snake-case code that callers branch on. */
  readonly code: Code;
  /** Message a person can act on. Never contains secrets. */
  readonly message: string;
  /**
   * HTTP status.
   * @default the catalog's status for `code`, or 500 for a code the catalog does not know
   */
  readonly status?: number;
  /**
   * Whether the same call may succeed if sent again.
   * @default the catalog's flag for `code`, or `false`
   */
  readonly retryable?: boolean;
  /** JSON data that helps the caller act (for example `connectUrl`). */
  readonly details?: JsonObject | undefined;
  /** The request that failed, for correlation with broker logs. */
  readonly requestId?: string | undefined;
  /** The underlying error, kept for debugging; never sent over the wire. */
  readonly cause?: unknown;
}

// A registered symbol is shared by every copy of this package in one realm, so two installed
// versions still recognise each other's errors.
const brand = Symbol.for('@platform/errors.PlatformError');

/**
 * The one error type of the Platform SDK family. Every failure a user's code must handle is a
 * `PlatformError` with a stable `code`.
 *
 * @example
 * ```ts
 * try {
 *   await platform.functions.call('saveTodo', input);
 * } catch (error) {
 *   if (isPlatformError(error, 'AUTH_REQUIRED')) location.href = platform.auth.signInUrl();
 *   else throw error;
 * }
 * ```
 */
export class PlatformError<Code extends PlatformErrorCode = PlatformErrorCode> extends Error {
  override readonly name = 'PlatformError';
  /** Stable code to branch on. */
  readonly code: Code;
  /** HTTP status (0 when no response was received). */
  readonly status: number;
  /** Whether the same call may succeed if sent again later. */
  readonly retryable: boolean;
  /** JSON data that helps the caller act, or `undefined`. */
  readonly details: JsonObject | undefined;
  /** The broker request id, when the error came from a response. */
  readonly requestId: string | undefined;

  constructor(init: PlatformErrorInit<Code>) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status ?? (isErrorCode(init.code) ? errorStatus[init.code] : 500);
    this.retryable = init.retryable ?? retryableCodes.has(init.code);
    this.details = init.details;
    this.requestId = init.requestId;
  }

  /** `instanceof` also accepts errors made by another copy of this package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(value);
  }

  /** The JSON form used in logs and error envelopes (no `cause`, no stack). */
  toJSON(): {
    code: string;
    message: string;
    status: number;
    retryable: boolean;
    details?: JsonObject;
  } {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      retryable: this.retryable,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

// On the prototype rather than each instance: construction stays as cheap as a plain Error.
Object.defineProperty(PlatformError.prototype, brand, { value: true });

function isBranded(value: unknown): boolean {
  return typeof value === 'object' && value !== null && brand in value;
}

/**
 * True when `value` is a {@link PlatformError} from any copy of this package, optionally with
 * the given code.
 *
 * @example
 * ```ts
 * if (isPlatformError(error, 'IDEMPOTENCY_KEY_REUSED')) return existingJob;
 * ```
 */
export function isPlatformError<Code extends PlatformErrorCode>(
  value: unknown,
  code?: Code,
): value is PlatformError<Code> {
  return isBranded(value) && (code === undefined || (value as PlatformError).code === code);
}
