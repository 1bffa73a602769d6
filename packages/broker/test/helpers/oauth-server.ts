// A real OAuth 2 authorization server on loopback for the integration tests, built on
// @node-oauth/oauth2-server (RFC 6749 authorization-code and refresh-token grants, RFC 7636
// PKCE checked at the token endpoint). One public client; the person signing in is always
// the same user, so a browser following the authorization redirect is sent straight back.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OAuth2Server from '@node-oauth/oauth2-server';

/** The running server and what the tests observe and change on it. */
export interface TestOAuthServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `host:port`, for `allowNet`. */
  readonly host: string;
  /** Token requests by grant type. */
  readonly grants: { authorization_code: number; refresh_token: number };
  /** The authorization requests' query parameters, newest last. */
  readonly authorizations: URLSearchParams[];
  /** Answers the next authorization requests with `error=access_denied`. */
  deny: boolean;
  /** Forgets every refresh token: the next refresh is rejected with `invalid_grant`. */
  revokeRefreshTokens(): void;
  /** Delays every token response by `ms` (overlapping refreshes in tests). */
  tokenDelayMs: number;
  close(): Promise<void>;
}

interface StoredToken {
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken?: string;
  refreshTokenExpiresAt?: Date;
  scope?: string[];
  client: OAuth2Server.Client;
  user: OAuth2Server.User;
}

/**
 * Starts the server with one public client `clientId` allowed to redirect to `redirectUri`.
 * Access tokens live `accessTokenLifetime` seconds.
 */
export async function startOAuthServer(options: {
  clientId: string;
  redirectUri: () => string;
  accessTokenLifetime: number;
}): Promise<TestOAuthServer> {
  const codes = new Map<string, OAuth2Server.AuthorizationCode>();
  const access = new Map<string, StoredToken>();
  const refresh = new Map<string, StoredToken>();
  const client = (): OAuth2Server.Client => ({
    id: options.clientId,
    grants: ['authorization_code', 'refresh_token'],
    redirectUris: [options.redirectUri()],
    accessTokenLifetime: options.accessTokenLifetime,
  });
  const model: OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel = {
    getClient: async (id) => (id === options.clientId ? client() : false),
    saveAuthorizationCode: async (code, c, user) => {
      const saved = { ...code, client: c, user } as OAuth2Server.AuthorizationCode;
      codes.set(code.authorizationCode, saved);
      return saved;
    },
    getAuthorizationCode: async (code) => codes.get(code) ?? false,
    revokeAuthorizationCode: async (code) => codes.delete(code.authorizationCode),
    saveToken: async (token, c, user) => {
      const saved = { ...token, client: c, user } as StoredToken;
      access.set(saved.accessToken, saved);
      if (saved.refreshToken) refresh.set(saved.refreshToken, saved);
      return saved as OAuth2Server.Token;
    },
    getAccessToken: async (token) => (access.get(token) as OAuth2Server.Token) ?? false,
    getRefreshToken: async (token) => (refresh.get(token) as OAuth2Server.RefreshToken) ?? false,
    revokeToken: async (token) => refresh.delete(token.refreshToken),
    verifyScope: async () => true,
  };
  const oauth = new OAuth2Server({ model, allowEmptyState: false });
  const grants = { authorization_code: 0, refresh_token: 0 };
  const authorizations: URLSearchParams[] = [];
  const server: TestOAuthServer = {
    url: '',
    host: '',
    grants,
    authorizations,
    deny: false,
    tokenDelayMs: 0,
    revokeRefreshTokens: () => refresh.clear(),
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', server.url);
    const body =
      req.method === 'POST' ? Object.fromEntries(new URLSearchParams(await text(req))) : {};
    const request = new OAuth2Server.Request({
      method: req.method ?? 'GET',
      headers: req.headers as Record<string, string>,
      query: Object.fromEntries(url.searchParams),
      body,
    });
    const response = new OAuth2Server.Response(res);
    try {
      if (url.pathname === '/authorize') {
        authorizations.push(url.searchParams);
        if (server.deny) {
          const back = new URL(url.searchParams.get('redirect_uri') ?? '');
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('state', url.searchParams.get('state') ?? '');
          res.writeHead(302, { location: back.href }).end();
          return;
        }
        await oauth.authorize(request, response, {
          authenticateHandler: { handle: () => ({ id: 'user-1' }) },
        });
      } else if (url.pathname === '/token') {
        const grant = body.grant_type as keyof typeof grants;
        if (grant in grants) grants[grant] += 1;
        if (server.tokenDelayMs > 0) await new Promise((r) => setTimeout(r, server.tokenDelayMs));
        await oauth.token(request, response, {
          requireClientAuthentication: { authorization_code: false, refresh_token: false },
        });
      } else if (url.pathname === '/api/me') {
        const token = await oauth.authenticate(request, response);
        response.body = { user: token.user.id, client: token.client.id };
      } else {
        response.status = 404;
        response.body = { error: 'not_found' };
      }
    } catch (error) {
      const failure = error as { code?: number; name?: string; message?: string };
      response.status = failure.code ?? 500;
      response.body = { error: failure.name ?? 'server_error', error_description: failure.message };
    }
    const headers = { ...response.headers } as Record<string, string>;
    if (response.body !== undefined && !headers['content-type']) {
      headers['content-type'] = 'application/json';
    }
    res.writeHead(response.status ?? 200, headers);
    res.end(response.body === undefined ? undefined : JSON.stringify(response.body));
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  Object.assign(server, { url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` });
  return server;
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
