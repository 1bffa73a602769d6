import { limits } from '@platform/schema';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../kernel/clock.ts';

/** What an access JWT says: the account, its session, and the app it is valid for. */
export interface AccessClaims {
  readonly accountId: string;
  readonly sessionId: string;
}

const ISSUER = 'platform-local-broker';

/**
 * The short-lived access JWT (HS256, jose) the session route hands to the browser SDK: valid 1
 * hour (never past its session's end), audience = the app id, `sid` = the session. The signing
 * key is random per app and kept in `platform.auth_keys`, so sessions survive a restart.
 */
export class AccessJwt {
  readonly #key: Uint8Array;
  readonly #appId: string;
  readonly #clock: Clock;

  constructor(key: Uint8Array, appId: string, clock: Clock) {
    this.#key = key;
    this.#appId = appId;
    this.#clock = clock;
  }

  /**
   * A token for the session, expiring after `accessTokenSeconds` or at `sessionEnd`, whichever
   * comes first.
   *
   * @example
   * ```ts
   * const { token, expiresAt } = await jwt.sign({ accountId, sessionId }, session.expiresAt, 'a@b.c');
   * ```
   */
  async sign(
    claims: AccessClaims,
    sessionEnd: Date,
    email: string,
  ): Promise<{ token: string; expiresAt: Date }> {
    const now = Math.floor(this.#clock.now().getTime() / 1000);
    const exp = Math.min(now + limits.accessTokenSeconds, Math.floor(sessionEnd.getTime() / 1000));
    const token = await new SignJWT({ sid: claims.sessionId, email, role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(this.#appId)
      .setSubject(claims.accountId)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(this.#key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a valid token for this app, or `undefined` (bad signature, expired, other app). */
  async verify(token: string): Promise<AccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: this.#appId,
        currentDate: this.#clock.now(),
        clockTolerance: 0,
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
      return { accountId: payload.sub, sessionId: payload.sid };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}
