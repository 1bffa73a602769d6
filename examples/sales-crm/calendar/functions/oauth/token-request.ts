import { errors, type SecretsClient } from '@platform/server';

/** What the exchange and refresh Functions answer (spec 2.10). */
export interface Tokens {
  accessToken: string;
  refreshToken?: string;
  expiresIn?: number;
}

/**
 * One request to the calendar service's token endpoint (RFC 6749 section 4.1.3 and 6). The
 * service refusing the grant (4xx, such as `invalid_grant` for a revoked refresh token) is
 * `unauthorized`, which the platform turns into `Reconnect required`; anything else is
 * `unavailable`, tried again later.
 */
export async function tokenRequest(
  secrets: SecretsClient,
  params: Record<string, string>,
): Promise<Tokens> {
  const base = await secrets.require('CALENDAR_URL');
  const response = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'sales-crm-example', ...params }),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status >= 400 && response.status < 500) {
    throw errors.unauthorized(
      'CALENDAR_GRANT_REFUSED',
      `The calendar refused the grant (${String(body.error)}).`,
    );
  }
  if (!response.ok || typeof body.access_token !== 'string') {
    throw errors.unavailable('CALENDAR_UNAVAILABLE', 'The calendar service is unavailable.');
  }
  return {
    accessToken: body.access_token,
    ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
    ...(typeof body.expires_in === 'number' ? { expiresIn: body.expires_in } : {}),
  };
}
