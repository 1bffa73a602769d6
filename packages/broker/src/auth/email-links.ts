import { limits } from '@platform/schema';
import type { Database } from '../db/database.ts';
import type { Clock } from '../kernel/clock.ts';
import { randomSecret, safeEqual, sha256 } from '../kernel/crypto.ts';
import { newId } from '../kernel/ids.ts';

/** `sign-in` approves a browser's sign-in; `confirm` only confirms the address (spec 3.3). */
export type LinkPurpose = 'sign-in' | 'confirm';

/** An email-link request as stored (no secret in it). */
export interface EmailLink {
  readonly id: string;
  readonly email: string;
  readonly purpose: LinkPurpose;
  readonly returnTo: string;
  readonly expiresAt: Date;
}

/** Why a link or a claim cannot be used; each has its own page. */
export type LinkProblem = 'unknown' | 'expired' | 'used';

/** What a browser claim finds. */
export type ClaimState =
  | { readonly state: 'pending'; readonly link: EmailLink }
  | { readonly state: 'approved'; readonly link: EmailLink; readonly accountId: string }
  | { readonly state: 'invalid' | 'expired' | 'claimed' };

interface LinkRow {
  id: string;
  email: string;
  purpose: LinkPurpose;
  return_to: string;
  claim_hash: string;
  expires_at: Date | string;
  approved_at: Date | string | null;
  approved_account: string | null;
  claimed_at: Date | string | null;
}

const toLink = (row: LinkRow): EmailLink => ({
  id: row.id,
  email: row.email,
  purpose: row.purpose,
  returnTo: row.return_to,
  expiresAt: new Date(row.expires_at),
});

/** After approval, how long past the link's end the waiting window may still claim it (ours). */
export const CLAIM_GRACE_SECONDS = 2 * 60;

/**
 * One-time email links (spec 5.1.2) in `platform.email_links`: the link token and the
 * requesting browser's claim secret are random 256-bit values stored only as SHA-256. A link is
 * valid `limits.emailLinkSeconds` and approves once; only the browser holding the claim can
 * turn the approval into a session, once.
 */
export class EmailLinks {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #appId: string;

  constructor(db: Database, clock: Clock, appId: string) {
    this.#db = db;
    this.#clock = clock;
    this.#appId = appId;
  }

  /** Records a request; resolves to the link token (for the email) and the claim cookie value. */
  async request(
    email: string,
    purpose: LinkPurpose,
    returnTo: string,
  ): Promise<{ link: EmailLink; token: string; claim: string }> {
    const id = newId('emailLink');
    const token = randomSecret();
    const claimSecret = randomSecret();
    const now = this.#clock.now();
    const expiresAt = new Date(now.getTime() + limits.emailLinkSeconds * 1000);
    await this.#db.query(
      `INSERT INTO platform.email_links
         (id, app_id, email, purpose, token_hash, claim_hash, return_to, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        this.#appId,
        email,
        purpose,
        sha256(token),
        sha256(claimSecret),
        returnTo,
        now,
        expiresAt,
      ],
    );
    return {
      link: { id, email, purpose, returnTo, expiresAt },
      token,
      claim: `${id}.${claimSecret}`,
    };
  }

  /** The link behind `token` if it can still be approved (a GET changes nothing). */
  async preview(
    token: string,
  ): Promise<{ ok: true; link: EmailLink } | { ok: false; problem: LinkProblem }> {
    const { rows } = await this.#db.query<LinkRow>(
      'SELECT * FROM platform.email_links WHERE token_hash = $1 AND app_id = $2',
      [sha256(token), this.#appId],
    );
    const row = rows[0];
    if (row === undefined) return { ok: false, problem: 'unknown' };
    if (row.approved_at !== null) return { ok: false, problem: 'used' };
    if (this.#clock.now() >= new Date(row.expires_at)) return { ok: false, problem: 'expired' };
    return { ok: true, link: toLink(row) };
  }

  /**
   * Approves the link for `accountId`, once: of two concurrent approvals only one succeeds.
   * `resolveAccount` runs inside the same step, after the link is known to be usable.
   */
  async approve(
    token: string,
    resolveAccount: (link: EmailLink) => Promise<string>,
  ): Promise<{ ok: true; link: EmailLink } | { ok: false; problem: LinkProblem }> {
    const checked = await this.preview(token);
    if (!checked.ok) return checked;
    const accountId = await resolveAccount(checked.link);
    const { rowCount } = await this.#db.query(
      `UPDATE platform.email_links SET approved_at = $2, approved_account = $3
       WHERE id = $1 AND approved_at IS NULL AND expires_at > $2`,
      [checked.link.id, this.#clock.now(), accountId],
    );
    return rowCount === 1 ? checked : { ok: false, problem: 'used' };
  }

  /**
   * Looks at the claim of the requesting browser (cookie value `<link id>.<claim secret>`);
   * with `consume`, an approved claim is marked claimed so it makes exactly one session.
   */
  async claim(value: string, consume: boolean): Promise<ClaimState> {
    const dot = value.indexOf('.');
    if (dot <= 0) return { state: 'invalid' };
    const { rows } = await this.#db.query<LinkRow>(
      'SELECT * FROM platform.email_links WHERE id = $1 AND app_id = $2',
      [value.slice(0, dot), this.#appId],
    );
    const row = rows[0];
    if (row === undefined || !safeEqual(sha256(value.slice(dot + 1)), row.claim_hash)) {
      return { state: 'invalid' };
    }
    if (row.claimed_at !== null) return { state: 'claimed' };
    const now = this.#clock.now();
    const end = new Date(row.expires_at).getTime();
    if (row.approved_at === null || row.approved_account === null) {
      return now.getTime() >= end ? { state: 'expired' } : { state: 'pending', link: toLink(row) };
    }
    if (now.getTime() >= end + CLAIM_GRACE_SECONDS * 1000) return { state: 'expired' };
    if (consume) {
      const { rowCount } = await this.#db.query(
        'UPDATE platform.email_links SET claimed_at = $2 WHERE id = $1 AND claimed_at IS NULL',
        [row.id, now],
      );
      if (rowCount !== 1) return { state: 'claimed' };
    }
    return { state: 'approved', link: toLink(row), accountId: row.approved_account };
  }
}
