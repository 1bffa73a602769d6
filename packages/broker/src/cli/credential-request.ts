import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlatformError } from '@platform/errors';
import type {
  AppTokenClaim,
  AppTokenRequestView,
  CredentialKind,
} from '../auth/app-token-requests.ts';
import { ownerApiPaths } from '../http/paths.ts';
import { appPath, brokerFetch, callBroker } from './broker-call.ts';
import { type CredentialStore, openCredentialStore } from './credential-store.ts';
import { findDev } from './dev-client.ts';
import { type CliIO, exitCodes } from './io.ts';

const POLL_MS = 1000;

/** A credential to ask for from the terminal and keep in the operating system's store. */
export interface CredentialRequest {
  /** The app folder whose `platform dev` is asked. */
  readonly app: string;
  readonly name: string;
  readonly kind: CredentialKind;
  /** Put before error lines (`platform <label>: ...`). */
  readonly label: string;
  /** The store's account name for the app's credential of this kind. */
  readonly account: (appId: string) => string;
  /** Who approves, for the printed instructions. */
  readonly approver: string;
}

/**
 * Asks the running `platform dev` for a credential, prints the approval page and the code to
 * compare, waits for the approval, claims the credential once and keeps it in the operating
 * system's credential store; the value is never printed. Checks the store first, so nothing is
 * asked where nothing could be kept; a credential the store then refuses is revoked at once.
 */
export async function requestCredential(io: CliIO, request: CredentialRequest): Promise<number> {
  const fail = (line: string) => {
    io.stderr(`platform ${request.label}: ${line}`);
    return exitCodes.failed;
  };
  const dev = await findDev(resolve(io.cwd, request.app));
  if (typeof dev === 'string') return fail(dev);
  let store: CredentialStore;
  try {
    store = await openCredentialStore();
  } catch (error) {
    return fail(`${(error as PlatformError).message} (CREDENTIAL_STORE_UNAVAILABLE)`);
  }
  const { tokens } = ownerApiPaths;
  const label = request.label;
  const asked = await callBroker<AppTokenRequestView & { approveUrl: string; claimSecret: string }>(
    io,
    request.app,
    appPath(`${tokens}/requests`),
    { json: { name: request.name, kind: request.kind }, label },
  );
  if (typeof asked === 'number') return asked;
  io.stdout(`Ask ${request.approver} to open, signed in:`);
  io.stdout(`  ${asked.approveUrl}`);
  io.stdout(
    `and type the code ${asked.userCode} there to approve. Waiting until ${asked.expiresAt}…`,
  );
  const claimPath = appPath(`${tokens}/requests/:id/claim`, { id: asked.id });
  for (;;) {
    const response = await brokerFetch(io, request.app, claimPath, {
      json: { secret: asked.claimSecret },
      label,
    });
    if (typeof response === 'number') return response;
    const claim = (await response.json()) as AppTokenClaim;
    if (claim.state === 'pending') {
      await sleep(POLL_MS);
      continue;
    }
    const account = request.account(dev.appId);
    try {
      await store.put(account, claim.token);
    } catch (error) {
      // A credential nobody holds is revoked rather than left live.
      const revoke = request.kind === 'agent' ? ownerApiPaths.agents : tokens;
      await brokerFetch(io, request.app, appPath(`${revoke}/:id`, { id: claim.info.id }), {
        method: 'DELETE',
        label,
      });
      return fail(`${(error as PlatformError).message} It was revoked.`);
    }
    io.stdout(
      `Approved. Kept ${claim.info.id} (${claim.info.name}, ${claim.info.hint}) in ${store.name} as "${account}" (service "platform"); it is not printed.`,
    );
    return exitCodes.ok;
  }
}
