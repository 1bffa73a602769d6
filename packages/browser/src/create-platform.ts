import { browserRoutes } from '@platform/schema/routes';
import { createFunctions } from './functions.ts';
import type { Transport } from './request.ts';
import { createSession } from './session.ts';
import type { Platform, PlatformOptions } from './types.ts';

/**
 * Creates a browser SDK instance for one app. Nothing is read or fetched until first use, so
 * creating one is safe during server-side rendering and in tests.
 *
 * @example
 * ```ts
 * import { createPlatform } from '@platform/browser';
 *
 * const platform = createPlatform({ appUrl: 'https://todos.example.app' });
 * const user = await platform.auth.currentUser();
 * const todos = await platform.functions.call('listTodos', {});
 * ```
 */
export function createPlatform(options: PlatformOptions = {}): Platform {
  const origin = (): string => {
    const url = options.appUrl ?? globalThis.location?.origin;
    if (!url) throw new TypeError('createPlatform needs `appUrl` outside a browser page.');
    return String(url);
  };
  const transport: Transport = {
    url: (path) => new URL(path, origin()).href,
    // Looked up on every request, so a fetch patched after creation (msw, a polyfill) is used.
    fetch: (input, init) => (options.fetch ?? fetch)(input, init),
    now: () => (options.now ?? Date.now)(),
  };
  const session = createSession(transport, options.sessionTimeoutMs ?? 10_000);
  return {
    auth: {
      currentUser: async () => (await session.credentials()).user,
      signInUrl(returnTo) {
        const url = new URL(transport.url(browserRoutes.signIn.path));
        url.searchParams.set('returnTo', returnTo ?? globalThis.location?.href ?? origin());
        return url.href;
      },
    },
    functions: createFunctions(transport, session, options.timeoutMs ?? 30_000),
  };
}

/**
 * The ready SDK instance for the page's own origin.
 *
 * @example
 * ```ts
 * import { platform } from '@platform/browser';
 *
 * const user = await platform.auth.currentUser();
 * if (!user) location.href = platform.auth.signInUrl();
 * ```
 */
export const platform: Platform = createPlatform();
