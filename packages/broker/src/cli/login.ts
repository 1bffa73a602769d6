import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlatformError } from '@platform/errors';
import type { AccountCredentialInfo } from '../auth/account-credentials.ts';
import type { AppTokenClaim, AppTokenRequestView } from '../auth/app-token-requests.ts';
import { accountApiPaths } from '../http/paths.ts';
import { type CredentialStore, openCredentialStore } from './credential-store.ts';
import { describeFailure, isLoopbackUrl } from './dev-client.ts';
import { type CliIO, defineCommand, exitCodes } from './io.ts';

const POLL_MS = 1000;

/** Where the store keeps the account credentials of `platform login`: `account/<base_url>`. */
export const STORED_ACCOUNT_PREFIX = 'account/';

/** The store's account name for the sign-in to `baseUrl` (already normalised). */
export const storedLoginAccount = (baseUrl: string): string => `${STORED_ACCOUNT_PREFIX}${baseUrl}`;

/** What `GET {base_url}/v1/account` answers. */
interface WhoAmI {
  readonly accountId: string;
  readonly email: string;
  readonly role: string;
  readonly organisation: string;
  readonly credential: AccountCredentialInfo;
}

const toOption = `  --to <base_url>  The service: its base URL (https, or http on this machine's loopback).`;

const loginUsage = `Usage: platform login --to <base_url> [--name <name>]

Signs this CLI in to a service as you (docs/auth.md). Prints a page to open in a browser where
you are signed in to the organisation, and a code to type there; once you approve, the account
credential is kept in the operating system's credential store (the Secret Service, Keychain or
Credential Manager) under "account/<base_url>" and never printed. Signing in again to the same
service replaces and revokes the credential kept before. platform whoami and platform logout
use it.

Options:
${toOption}
  --name <name>    The credential's label, as the service lists it (default "platform CLI on <host>").
  -h, --help       Show this help.`;

const whoamiUsage = `Usage: platform whoami [--to <base_url>] [--json]

Prints the account this CLI is signed in as at a service (platform login) and its role in the
organisation. Exit code 3 when it is not signed in there, or the service refuses the kept
credential (revoked, or the account left the organisation).

Options:
${toOption}
                   May be left out when the CLI is signed in to one service only.
  --json           Print the service's answer as JSON.
  -h, --help       Show this help.`;

const logoutUsage = `Usage: platform logout [--to <base_url>]

Revokes the account credential kept for a service (platform login) at the service and forgets
it from the operating system's credential store.

Options:
${toOption}
                   May be left out when the CLI is signed in to one service only.
  -h, --help       Show this help.`;

/**
 * `--to` as the store and the requests use it: origin and path without a trailing slash; `https`,
 * or `http` on loopback only, since the credential is sent with every request.
 */
export function normaliseBaseUrl(to: string): string | { readonly problem: string } {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    return {
      problem: `"${to}" is not a URL; give the service's base URL, like https://platform.example.com.`,
    };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url.href))) {
    return {
      problem: `${url.origin} is not https: an account credential travels only over https, or over http to this machine's loopback.`,
    };
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return { problem: 'The base URL has no query, fragment or user name.' };
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

// One call to the service; an error answer or an unreachable service is a line for the terminal.
async function call(
  base: string,
  path: string,
  init: { method?: string; json?: unknown; token?: string } = {},
): Promise<Response | { readonly failure: string; readonly status?: number }> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      redirect: 'error',
    });
  } catch (error) {
    return { failure: await describeFailure(error as Error) };
  }
  if (!response.ok) return { failure: await describeFailure(response), status: response.status };
  return response;
}

/** Opens the OS credential store, or prints why not and answers the exit code. */
export async function store(io: CliIO, label: string): Promise<CredentialStore | number> {
  try {
    return await openCredentialStore();
  } catch (error) {
    io.stderr(
      `platform ${label}: ${(error as PlatformError).message} (CREDENTIAL_STORE_UNAVAILABLE)`,
    );
    return exitCodes.failed;
  }
}

/** The service named by --to, or the one service signed in to when there is one. */
export async function chosenBase(
  io: CliIO,
  label: string,
  kept: CredentialStore,
  to: string | undefined,
): Promise<string | number> {
  if (to !== undefined) {
    const base = normaliseBaseUrl(to);
    if (typeof base === 'string') return base;
    io.stderr(`platform ${label}: ${base.problem}`);
    return exitCodes.usage;
  }
  const accounts = await kept.accounts(STORED_ACCOUNT_PREFIX);
  if (accounts.length === 1) return (accounts[0] as string).slice(STORED_ACCOUNT_PREFIX.length);
  if (accounts.length === 0) {
    io.stderr(
      `platform ${label}: Not signed in to any service; sign in with: platform login --to <base_url>`,
    );
    return exitCodes.signedOut;
  }
  const bases = accounts.map((one) => one.slice(STORED_ACCOUNT_PREFIX.length));
  io.stderr(`platform ${label}: Signed in to ${bases.join(', ')}; say which with --to <base_url>.`);
  return exitCodes.usage;
}

/** `platform login --to <base_url>`. */
export const loginCommand = defineCommand({
  name: 'login',
  summary: 'Sign this CLI in to a service as you (kept in the OS credential store).',
  usage: loginUsage,
  options: { to: { type: 'string' }, name: { type: 'string' } },
  async run(parsed, io, usageError) {
    const label = 'login';
    if (parsed.values.to === undefined) return usageError('--to <base_url> names the service');
    const base = normaliseBaseUrl(parsed.values.to);
    if (typeof base !== 'string') return usageError(base.problem);
    const fail = (line: string) => {
      io.stderr(`platform ${label}: ${line}`);
      return exitCodes.failed;
    };
    const kept = await store(io, label);
    if (typeof kept === 'number') return kept;
    const name = parsed.values.name ?? `platform CLI on ${hostname()}`;
    const asked = await call(base, accountApiPaths.loginRequests, { json: { name } });
    if (!(asked instanceof Response)) return fail(asked.failure);
    const request = (await asked.json()) as AppTokenRequestView & {
      approveUrl: string;
      claimSecret: string;
    };
    io.stdout('Open, signed in to the organisation:');
    io.stdout(`  ${request.approveUrl}`);
    io.stdout(
      `and type the code ${request.userCode} there to approve. Waiting until ${request.expiresAt}…`,
    );
    const claimPath = accountApiPaths.loginClaim.replace(':id', encodeURIComponent(request.id));
    for (;;) {
      const answer = await call(base, claimPath, { json: { secret: request.claimSecret } });
      if (!(answer instanceof Response)) return fail(answer.failure);
      const claim = (await answer.json()) as AppTokenClaim;
      if (claim.state === 'pending') {
        await sleep(POLL_MS);
        continue;
      }
      const account = storedLoginAccount(base);
      const before = await kept.get(account);
      try {
        await kept.put(account, claim.token);
      } catch (error) {
        // A credential nobody holds is revoked rather than left live.
        await revokeCurrent(base, claim.token);
        return fail(`${(error as PlatformError).message} It was revoked.`);
      }
      if (before !== undefined && before !== claim.token) await revokeCurrent(base, before);
      const who = await call(base, accountApiPaths.account, { token: claim.token });
      const me = who instanceof Response ? ((await who.json()) as WhoAmI) : undefined;
      io.stdout(
        `Signed in to ${base}${me ? ` as ${me.email} (${me.role} of ${me.organisation})` : ''}. Kept ${claim.info.id} (${claim.info.hint}) in ${kept.name} as "${account}" (service "platform"); it is not printed.`,
      );
      return exitCodes.ok;
    }
  },
});

const revokeCurrent = (base: string, token: string) =>
  call(base, accountApiPaths.credential.replace(':id', 'current'), { method: 'DELETE', token });

/** `platform whoami [--to <base_url>]`. */
export const whoamiCommand = defineCommand({
  name: 'whoami',
  summary: 'The account this CLI is signed in as at a service, and its role.',
  usage: whoamiUsage,
  options: { to: { type: 'string' }, json: { type: 'boolean', default: false } },
  async run(parsed, io) {
    const label = 'whoami';
    const kept = await store(io, label);
    if (typeof kept === 'number') return kept;
    const base = await chosenBase(io, label, kept, parsed.values.to);
    if (typeof base === 'number') return base;
    const token = await kept.get(storedLoginAccount(base));
    if (token === undefined) {
      io.stderr(
        `platform ${label}: Not signed in to ${base}; sign in with: platform login --to ${base}`,
      );
      return exitCodes.signedOut;
    }
    const answer = await call(base, accountApiPaths.account, { token });
    if (!(answer instanceof Response)) {
      if (answer.status === 401) {
        io.stderr(
          `platform ${label}: ${base} refused the credential kept for it (revoked, or the account left the organisation): ${answer.failure} Sign in again with: platform login --to ${base}`,
        );
        return exitCodes.signedOut;
      }
      io.stderr(`platform ${label}: ${answer.failure}`);
      return exitCodes.failed;
    }
    const me = (await answer.json()) as WhoAmI;
    if (parsed.values.json) io.stdout(JSON.stringify(me, null, 2));
    else io.stdout(`${me.email}\n${me.role} of ${me.organisation} at ${base}`);
    return exitCodes.ok;
  },
});

/** `platform logout [--to <base_url>]`. */
export const logoutCommand = defineCommand({
  name: 'logout',
  summary: 'Revoke and forget the sign-in to a service (platform login).',
  usage: logoutUsage,
  options: { to: { type: 'string' } },
  async run(parsed, io) {
    const label = 'logout';
    const kept = await store(io, label);
    if (typeof kept === 'number') return kept;
    const base = await chosenBase(io, label, kept, parsed.values.to);
    if (typeof base === 'number') return base === exitCodes.signedOut ? exitCodes.ok : base;
    const account = storedLoginAccount(base);
    const token = await kept.get(account);
    if (token === undefined) {
      io.stdout(`Not signed in to ${base}; nothing to do.`);
      return exitCodes.ok;
    }
    const revoked = await revokeCurrent(base, token);
    // A credential the service already refuses is dead; only an unreachable service keeps it.
    if (!(revoked instanceof Response) && revoked.status !== 401) {
      io.stderr(`platform ${label}: ${revoked.failure} The credential is still kept; try again.`);
      return exitCodes.failed;
    }
    await kept.delete(account);
    io.stdout(
      revoked instanceof Response
        ? `Signed out of ${base}: the credential was revoked and forgotten.`
        : `Signed out of ${base}: the service no longer accepted the credential; it was forgotten.`,
    );
    return exitCodes.ok;
  },
});
