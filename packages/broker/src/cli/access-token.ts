import { limits } from '@platform/schema';
import type { AppTokenInfo } from '../auth/app-tokens.ts';
import { ownerApiPaths } from '../http/paths.ts';
import { inMinutes } from '../kernel/clock.ts';
import { appPath, callBroker } from './broker-call.ts';
import { requestCredential } from './credential-request.ts';
import { type CliIO, exitCodes } from './io.ts';

/** The usage lines of `platform app access-token`. */
export const accessTokenUsage = `       platform app access-token request [--name <name>] [--app <dir>]
       platform app access-token list [--app <dir>] [--json]
       platform app access-token create [--name <name>] [--app <dir>] [--json]
       platform app access-token revoke <id> [--app <dir>]

App access tokens act as the app's owner on its runtime (REST, Functions, files), sent as
Authorization: Bearer plat_app_...; never on the broker API. No command prints one:
  request  asks the owner to approve a token in the browser (they type the code this
           command prints there), then keeps it in the operating system's credential store (the
           Secret Service, Keychain or Credential Manager) under "app-access-token/<app id>";
  create   answers a one-time reveal link for the owner's browser (${inMinutes(limits.revealLinkSeconds)});
  list     shows each token's id, state and first characters; revoke ends one at once.`;

/** Where `request` keeps the app's token in the credential store. */
export const storedTokenAccount = (appId: string): string => `app-access-token/${appId}`;

/** Options of `platform app access-token`. */
export interface AccessTokenArgs {
  readonly app: string;
  readonly name: string | undefined;
  readonly json: boolean;
}

/**
 * Runs `platform app access-token <action> [id]`; resolves to the exit code, or to a usage
 * problem as a string.
 */
export async function runAccessToken(
  io: CliIO,
  action: string | undefined,
  id: string | undefined,
  args: AccessTokenArgs,
): Promise<number | string> {
  const label = 'app access-token';
  const tokens = appPath(ownerApiPaths.tokens);
  if (action === 'request' && id === undefined) {
    return requestCredential(io, {
      app: args.app,
      name: args.name ?? 'token',
      kind: 'app_token',
      label: 'app access-token request',
      account: storedTokenAccount,
      approver: 'the app’s owner',
    });
  }
  if (action === 'revoke' && id !== undefined) {
    const answer = await callBroker(io, args.app, appPath(`${ownerApiPaths.tokens}/:id`, { id }), {
      method: 'DELETE',
      label,
    });
    if (typeof answer === 'number') return answer;
    io.stdout(`Revoked ${id}.`);
    return exitCodes.ok;
  }
  if (action === 'create' && id === undefined) {
    const json = { name: args.name ?? 'token' };
    const made = await callBroker<AppTokenInfo & { revealUrl: string }>(io, args.app, tokens, {
      json,
      label,
    });
    if (typeof made === 'number') return made;
    if (args.json) {
      io.stdout(JSON.stringify(made, null, 2));
      return exitCodes.ok;
    }
    io.stdout(`Created ${made.id} (${made.name}). The owner reveals it once, signed in, at:`);
    io.stdout(`  ${made.revealUrl}`);
    io.stdout(`The link works once, until ${made.revealExpiresAt}.`);
    return exitCodes.ok;
  }
  if (action === 'list' && id === undefined) {
    const answer = await callBroker<{ tokens: AppTokenInfo[] }>(io, args.app, tokens, { label });
    if (typeof answer === 'number') return answer;
    if (args.json) {
      io.stdout(JSON.stringify(answer, null, 2));
      return exitCodes.ok;
    }
    if (answer.tokens.length === 0) io.stdout('No app access tokens.');
    for (const t of answer.tokens) {
      io.stdout(
        `${t.id}  ${t.state}  ${t.hint ?? '-'}  ${t.name}  created ${t.createdAt}  last used ${t.lastUsedAt ?? 'never'}`,
      );
    }
    return exitCodes.ok;
  }
  return 'expected request, list, create or revoke <id>';
}
