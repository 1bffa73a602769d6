import { PlatformError } from '@platform/errors';
import type { Hono } from 'hono';
import type { CallRequest, FunctionInvoker } from '../functions/invoker.ts';
import { scopeToApp } from '../http/app-scope.ts';
import { readBearer } from '../http/bearer.ts';
import { bodyLimits, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import { anonymousCaller, type Caller, userCaller } from '../kernel/caller.ts';
import { safeEqual } from '../kernel/crypto.ts';

/** The body of a direct invocation. */
export interface DirectInvocation {
  /** The Function's input. @default {} */
  readonly input?: unknown;
  /** Run as this user (a UUID); omitted: anonymous. System Functions always run as system. */
  readonly user?: string;
}

/**
 * The developer's own entry points on the owner API:
 *
 * - `POST /v1/apps/:appId/invoke/:name` with `{ input?, user? }` and
 *   `Authorization: Bearer <dev token>` (the token `platform dev` writes to `.platform/dev.json`):
 *   a direct invocation (`platform invoke`). It may pick any user, so it needs the token that
 *   only someone who can read the app folder has, or an agent credential of this app that
 *   control-plane admission let through (`invoke_dev_function`, docs/agents.md): its person may
 *   change the app, and so its Functions, anyway. The answer is the host's (`{ result }` or
 *   bytes).
 */
export function mountBrokerApi(
  app: Hono<BrokerEnv>,
  services: {
    /** The app's id, which the path names. */
    appId: string;
    invoker: FunctionInvoker;
    devToken: string;
    /**
     * What a direct invocation of `name` runs with besides its input, when it is not a plain
     * call (an integration Function of a provider app runs for its test connection).
     */
    prepare?: (name: string) => Promise<Partial<CallRequest> | undefined>;
  },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.invoke]);
  app.post(ownerApiPaths.invoke, async (c) => {
    const presented = readBearer(c.req.header('authorization'));
    // Admission sets `agent` only after checking the credential against this app and its route.
    const agent = c.get('agent') !== undefined;
    // The owner's console: admission checked the session and the form token.
    const viaConsole = c.get('console') === true;
    if (
      !agent &&
      !viaConsole &&
      (typeof presented !== 'string' || !safeEqual(presented, services.devToken))
    ) {
      throw new PlatformError({
        code: 'AUTH_REQUIRED',
        message:
          'Direct invocation needs the dev token of .platform/dev.json (use platform invoke) or an agent credential of this app.',
      });
    }
    const body =
      (await readJsonBody(c.req.raw, { maxBytes: bodyLimits.json, allowEmpty: true })) ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: 'The body must be { input?, user? }.',
      });
    }
    const { input, user } = body as DirectInvocation;
    let caller: Caller = anonymousCaller;
    if (user !== undefined) {
      try {
        caller = userCaller(String(user));
      } catch {
        throw new PlatformError({
          code: 'INVALID_REQUEST',
          message: `user must be a UUID, got ${JSON.stringify(user)}.`,
        });
      }
    }
    const name = c.req.param('name');
    const prepared = await services.prepare?.(name);
    const answer = await services.invoker.call(name, {
      requestId: c.get('requestId'),
      input: input === undefined ? {} : input,
      caller,
      origin: 'direct',
      signal: c.req.raw.signal,
      ...prepared,
    });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
}
