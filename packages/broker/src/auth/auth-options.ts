import { basename } from 'node:path';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { normalizeEmail } from '../kernel/email.ts';

/** Whether anonymous visitors may open the app (manifest top-level `visibility`). */
export type AppVisibility = 'public' | 'private';

/** Limits on password attempts (ours; the spec shows none). */
export interface PasswordRateLimit {
  /** Failed attempts per email address within the window. @default 5 */
  readonly perEmail: number;
  /** Failed attempts per client address within the window. @default 20 */
  readonly perClient: number;
  /**
   * New accounts registered by password per client within the window: each one is an account
   * and a confirmation email, so one browser must not mint them without end. @default 5
   */
  readonly registrationsPerClient: number;
  /** The sliding window in seconds. @default 900 */
  readonly windowSeconds: number;
}

/** An app of the same organisation (docs/organisations.md). */
export interface OrgPeer {
  readonly appId: string;
  /** Its `{app_url}`. */
  readonly url: string;
  /**
   * Its verified custom domains (`platform serve`), where a sign-in handed back to it may also
   * return: each with the scheme and port of {@link url}. @default none
   */
  readonly domains?: readonly string[];
}

/** How sign-in behaves for one broker. */
export interface AuthOptions {
  /**
   * The apps of the organisation, this one included: a browser without a session here is
   * first sent past the others, and one that is signed in at one of them comes back signed in
   * here (docs/auth.md, "Several apps"). @default none: this app alone
   */
  readonly peers?: () => readonly OrgPeer[];
  /**
   * Whether this is the organisation's central sign-in (`{auth_url}` of `platform serve`): a
   * browser without a session that the relay brings here signs in here and goes on to the
   * asking app, rather than being passed to the next app. @default false
   */
  readonly centralSignIn?: boolean;
  /**
   * The organisation's central sign-in, where a browser without a session is sent first (spec
   * 5.1.1), before the other apps. @default none: the apps relay among themselves
   */
  readonly centralSignInAt?: OrgPeer;
  /** What the sign-in pages and mails call the app. @default its id */
  readonly displayName?: string;
  /** The app's id: app access tokens and access JWTs are bound to it. @default the app folder's name */
  readonly appId?: string;
  /** @default 'private' (the manifest's default, the safe choice) */
  readonly visibility?: AppVisibility;
  /**
   * The app owner's email for a broker running alone: always admitted, and app access tokens act
   * as this account. With an `ownerRecord` it is only the first owner, recorded there when the
   * record names none yet. @default 'owner@localhost'
   */
  readonly ownerEmail?: string;
  /**
   * Create the owner account unconfirmed, with the 24-hour confirmation deadline starting now
   * (an account created by agent onboarding, spec 3.3). An existing account is left as it is.
   * @default false
   */
  readonly ownerUnconfirmed?: boolean;
  /** Whether a password sign-in with an unknown address registers it (spec 5.1.3). @default true */
  readonly registration?: boolean;
  /** @default the machine's clock */
  readonly clock?: Clock;
  /** log2 of scrypt's cost parameter N for new verifiers. @default 15 */
  readonly passwordCost?: number;
  /** @default { perEmail: 5, perClient: 20, registrationsPerClient: 5, windowSeconds: 900 } */
  readonly passwordRateLimit?: Partial<PasswordRateLimit>;
  /** Mark cookies `Secure`. @default true when the request URL is https */
  readonly secureCookies?: boolean;
  /** Where the sign-in link of a captured email is printed. @default console.log */
  readonly print?: (line: string) => void;
  /**
   * The dev token `platform dev` writes to `.platform/dev.json`: it opens the control plane
   * (`/v1/apps/*`, `/v1/platform-administrators`, the dashboard). @default read from `.platform/dev.json`
   */
  readonly devToken?: string;
  /**
   * The app's own URL (`{app_url}`, `http://localhost:<port>` for the local broker): email links
   * are built from it, never from the request's `Host` header. `startBroker` sets it.
   * @default the origin of the request that asks for a link
   */
  readonly appUrl?: string;
  /**
   * Whether a signed-in account is a platform administrator, who may open this app for review
   * with their own identity (spec 5.3.2) without a grant. It gains no owner control: the control
   * plane still admits only the developer and the owner. @default nobody
   */
  readonly isReviewer?: (accountId: string) => Promise<boolean>;
  /**
   * The app's authority facts for agents (docs/agents.md): whether an account may Edit the app
   * (an agent acting for it may use the agent tools) and whether it owns the app (its agent may
   * bind connections). @default the app's owner only, for both
   */
  readonly agentAuthority?: AgentAuthority;
  /**
   * Where the app's owner is recorded when the organisation keeps it (its authority facts):
   * then sign-in's owner (token approval, reveal links, the control plane, what an app access
   * token acts as) is always the recorded one. @default the account of `ownerEmail`
   */
  readonly ownerRecord?: OwnerRecord;
  /**
   * Whether the control plane admits the account credential of `platform login`
   * (`Authorization: Bearer plat_account_...`), as `platform serve` does for its deployed apps:
   * who the credential is, and whether that account manages this app. @default not admitted
   */
  readonly accountAdmission?: AccountAdmission;
}

/** Who an account credential of `platform login` is, and whether they manage the app. */
export interface AccountAdmission {
  /** The member behind a live account credential; `undefined` for a revoked or unknown one. */
  memberOf(presented: string): Promise<string | undefined>;
  /** Whether the account acts on the app's owner API as its owner's console does. */
  manages(accountId: string): Promise<boolean>;
}

/** The app's owner as the organisation records it (docs/organisations.md). */
export interface OwnerRecord {
  /** The owner's account id; `undefined` when none is recorded or the app is no longer known. */
  current(): Promise<string | undefined>;
  /** Records `accountId` as the owner: the configured owner, when the record names none. */
  set(accountId: string): Promise<void>;
  /** Calls `listener` after this process records a new owner (caches of the owner). */
  onChange(listener: () => void): void;
}

/** What an agent's account may do on the app. */
export interface AgentAuthority {
  mayEdit(accountId: string): Promise<boolean>;
  owns(accountId: string): Promise<boolean>;
}

/** {@link AuthOptions} with every default applied. */
export interface ResolvedAuthOptions {
  /** The app folder (the owner API reads its `.platform/dev.json`). */
  readonly appDir: string;
  readonly appId: string;
  readonly visibility: AppVisibility;
  readonly ownerEmail: string;
  readonly ownerUnconfirmed: boolean;
  readonly registration: boolean;
  readonly clock: Clock;
  readonly passwordCost: number;
  readonly passwordRateLimit: PasswordRateLimit;
  readonly secureCookies: boolean | undefined;
  readonly print: (line: string) => void;
  readonly devToken: string | undefined;
  readonly appUrl: string | undefined;
  readonly peers: () => readonly OrgPeer[];
  readonly centralSignIn: boolean;
  readonly centralSignInAt: OrgPeer | undefined;
  readonly displayName: string;
  readonly isReviewer: (accountId: string) => Promise<boolean>;
  readonly agentAuthority: AgentAuthority | undefined;
  readonly ownerRecord: OwnerRecord | undefined;
  readonly accountAdmission: AccountAdmission | undefined;
}

/** Applies the defaults of {@link AuthOptions} for the app in `appDir`. */
export function resolveAuthOptions(appDir: string, options: AuthOptions = {}): ResolvedAuthOptions {
  return {
    appDir,
    appId: options.appId ?? basename(appDir),
    visibility: options.visibility ?? 'private',
    ownerEmail: normalizeEmail(options.ownerEmail ?? 'owner@localhost'),
    ownerUnconfirmed: options.ownerUnconfirmed ?? false,
    registration: options.registration ?? true,
    clock: options.clock ?? systemClock,
    passwordCost: options.passwordCost ?? 15,
    passwordRateLimit: {
      perEmail: options.passwordRateLimit?.perEmail ?? 5,
      perClient: options.passwordRateLimit?.perClient ?? 20,
      registrationsPerClient: options.passwordRateLimit?.registrationsPerClient ?? 5,
      windowSeconds: options.passwordRateLimit?.windowSeconds ?? 900,
    },
    secureCookies: options.secureCookies,
    print: options.print ?? ((line) => console.log(line)),
    devToken: options.devToken,
    appUrl: options.appUrl,
    agentAuthority: options.agentAuthority,
    ownerRecord: options.ownerRecord,
    accountAdmission: options.accountAdmission,
    peers: options.peers ?? (() => []),
    centralSignIn: options.centralSignIn ?? false,
    centralSignInAt: options.centralSignInAt,
    displayName: options.displayName ?? options.appId ?? basename(appDir),
    isReviewer: options.isReviewer ?? (async () => false),
  };
}
