import type { Hono } from 'hono';
import { platformSchema } from '../app/platform-schema.ts';
import { mountAccountApproval } from '../auth/app-token-routes.ts';
import type { OrgPeer } from '../auth/auth-options.ts';
import { resolveAuthOptions } from '../auth/auth-options.ts';
import { AuthService } from '../auth/auth-service.ts';
import { mountEmailLinkRoutes } from '../auth/email-link-routes.ts';
import { mountHandoffRoutes } from '../auth/handoff-routes.ts';
import { mountPasswordRoutes } from '../auth/password-routes.ts';
import { mountSessionRoutes } from '../auth/session-routes.ts';
import type { Database } from '../db/database.ts';
import { ensureDatabase } from '../db/database-per-app.ts';
import { withPlatformSchema } from '../db/platform-schema.ts';
import { PostgresDatabase } from '../db/postgres-database.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Clock } from '../kernel/clock.ts';
import type { MailDelivery } from '../outbox/mail-delivery.ts';
import { Outbox } from '../outbox/outbox.ts';

/**
 * The id the central sign-in goes by among the organisation's apps (handoff codes name it). An
 * app id never has an underscore, so no app can take it.
 */
export const CENTRAL_SIGN_IN_ID = '_signin';

/** The database of the central sign-in's own keys, sessions and sign-in mail. */
export const CENTRAL_SIGN_IN_DATABASE = 'platform_signin';

// The central sign-in is no app and has no owner: no page of it acts for one. Sign-in asks for
// an owner only to create one when none is recorded, so it is told of one that never exists
// rather than making an account nobody asked for.
const NO_OWNER = '00000000-0000-0000-0000-000000000000';

/** What the central sign-in needs. */
export interface CentralSignInOptions {
  /** The PostgreSQL server of the service (its database `platform_signin` is made on start). */
  readonly databaseUrl: string;
  readonly central: Database;
  readonly baseUrl: string;
  /** The organisation's name, which its sign-in pages show. */
  readonly organisation: string;
  readonly clock: Clock;
  /** The organisation's deployed apps, whose sign-in the central sign-in hands on. */
  readonly apps: () => readonly OrgPeer[];
  readonly print: (line: string) => void;
  /** What becomes of its email: sent over the service's mail server, or refused without one. */
  readonly mail: MailDelivery;
}

/** The running central sign-in of `platform serve`. */
export interface CentralSignIn {
  readonly auth: AuthService;
  /** Where its mail goes (sign-in links, and onboarding's project-aware emails). */
  readonly outbox: Outbox;
  /**
   * Where each app's sign-in sends a browser without a session first (spec 5.1.1): it signs in
   * here, or is signed in already, and comes back with a session of the app's own.
   */
  readonly at: OrgPeer;
  /** Mounts the sign-in pages, the relay and the terminal's approval page on `{base_url}`. */
  mount(app: Hono<BrokerEnv>): void;
  close(): Promise<void>;
}

/**
 * `{auth_url}` of `platform serve` (docs/production.md, "Sign-in"): the organisation's sign-in
 * at `{base_url}/_platform/auth`, on the accounts of the central store, with email links and
 * passwords as an app's sign-in has them. A person signs in here before any app is deployed
 * (to approve `platform login`), and a private app's browser without a session is relayed here
 * and returns to the app with a session of the app's own.
 */
export async function startCentralSignIn(options: CentralSignInOptions): Promise<CentralSignIn> {
  const url = await ensureDatabase(options.databaseUrl, CENTRAL_SIGN_IN_DATABASE);
  const { db } = await withPlatformSchema(await PostgresDatabase.connect(url, 4), platformSchema);
  const at: OrgPeer = { appId: CENTRAL_SIGN_IN_ID, url: options.baseUrl };
  try {
    const outbox = new Outbox(db, undefined, options.mail);
    const auth = await AuthService.create(
      db,
      outbox,
      resolveAuthOptions(CENTRAL_SIGN_IN_ID, {
        appId: CENTRAL_SIGN_IN_ID,
        displayName: options.organisation,
        appUrl: options.baseUrl,
        visibility: 'public',
        clock: options.clock,
        print: options.print,
        peers: options.apps,
        centralSignIn: true,
        ownerRecord: {
          current: async () => NO_OWNER,
          set: async () => undefined,
          onChange: () => undefined,
        },
      }),
      options.central,
    );
    return {
      auth,
      outbox,
      at,
      mount(app) {
        mountEmailLinkRoutes(app, auth);
        mountPasswordRoutes(app, auth);
        mountSessionRoutes(app, auth);
        mountHandoffRoutes(app, auth);
        mountAccountApproval(app, auth);
      },
      close: () => db.close(),
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
