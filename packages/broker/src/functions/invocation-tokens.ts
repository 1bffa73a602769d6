import type { Caller } from '../kernel/caller.ts';
import { newId } from '../kernel/ids.ts';

/** A file of a delegated read grant, pinned to the content generation it had at enqueue. */
export interface GrantedFile {
  readonly id: string;
  readonly generation: number;
}

/**
 * A delegated file read grant (SDK 2.4.0, spec 2.7): what `files: { read }` of an enqueue
 * granted, carried by each attempt of the job so its reads are checked against it.
 */
export interface FileGrant {
  readonly files: readonly GrantedFile[];
  readonly expiresAt: Date;
  /**
   * The user whose enqueue delegated the files: reads under the grant end when this user loses
   * access to the app. Absent when the system (or an anonymous visitor of a public app) enqueued.
   */
  readonly grantedBy?: string | undefined;
}

/** What an invocation token stands for: one call of one Function, as one caller. */
export interface InvocationGrant {
  readonly requestId: string;
  readonly functionName: string;
  readonly caller: Caller;
  /** `runtime.sdk.version` the Function is pinned to (runtime routes newer than it are refused). */
  readonly sdkVersion: string;
  /** Secret names the Function may read. */
  readonly secrets: readonly string[];
  /** Sender aliases the Function may send from. */
  readonly emailAliases: readonly string[];
  /** The delegated file read grant of the job attempt this call runs, if it has one. */
  readonly fileGrant?: FileGrant | undefined;
  /** The integration invocation this call is (its connection and trigger), if it is one. */
  readonly integration?: { readonly connectionId: string; readonly trigger: string } | undefined;
  /**
   * When this call's data authorization ends (ms since the epoch, on the broker's clock): a
   * browser's call on a custom domain keeps its original short-lived authorization, which is
   * never refreshed (spec 2.4), so its later data calls fail with `AUTH_REQUIRED`. Absent: the
   * data calls last as long as the token.
   */
  readonly dataExpiresAt?: number | undefined;
  /** An integration invocation's credential values, read as secrets by their names. */
  readonly credentials?: Readonly<Record<string, string | null>>;
}

/** How often minting sweeps out expired tokens (ms). */
const SWEEP_INTERVAL_MS = 1000;

/**
 * The invocation tokens the broker mints for each Function call and checks on every runtime
 * route (docs/runtime-contract.md 2.1). Tokens are random, held only in memory, and expire a
 * fixed time after the call's own time limit, so work a Function finishes late (a log flush)
 * still lands, while a leaked token soon becomes useless.
 */
export class InvocationTokens {
  readonly #grants = new Map<string, { grant: InvocationGrant; expiresAt: number }>();
  #sweptAt = 0;

  /** A new token for `grant`, valid for `ttlMs`. */
  mint(grant: InvocationGrant, ttlMs: number): string {
    // Tokens live for a call's limit plus a grace (90 s by default), so thousands are live under
    // load: sweeping all of them on every mint made each call cost O(live tokens). `verify`
    // checks expiry itself, so a sweep at most once a second only bounds memory.
    if (Date.now() - this.#sweptAt >= SWEEP_INTERVAL_MS) this.#sweep();
    const token = newId('invocationToken');
    this.#grants.set(token, { grant, expiresAt: Date.now() + ttlMs });
    return token;
  }

  /** The grant of a live token, or `undefined`. */
  verify(token: string | undefined): InvocationGrant | undefined {
    if (!token) return undefined;
    const entry = this.#grants.get(token);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#grants.delete(token);
      return undefined;
    }
    return entry.grant;
  }

  /** Ends a token early. */
  revoke(token: string): void {
    this.#grants.delete(token);
  }

  /** Live tokens (for tests and the dashboard). */
  get size(): number {
    this.#sweep();
    return this.#grants.size;
  }

  #sweep(): void {
    const now = Date.now();
    this.#sweptAt = now;
    for (const [token, entry] of this.#grants)
      if (entry.expiresAt <= now) this.#grants.delete(token);
  }
}
