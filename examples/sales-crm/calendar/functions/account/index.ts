import { defineFunction, errors, s } from '@platform/server';

/**
 * `account.get` of the `calendar` integration: asks the calendar service who the connection's
 * access token belongs to. A token the service refuses is `unauthorized`: the connection then
 * needs a new sign-in.
 */
export default defineFunction({
  input: s.object({}),
  handler: async ({ secrets }) => {
    const base = await secrets.require('CALENDAR_URL');
    const token = await secrets.require('OAUTH_ACCESS_TOKEN');
    const response = await fetch(`${base}/api/me`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status === 401) {
      throw errors.unauthorized('CALENDAR_TOKEN_REFUSED', 'The calendar refused the access token.');
    }
    if (!response.ok)
      throw errors.unavailable('CALENDAR_UNAVAILABLE', 'The calendar is unavailable.');
    const body = (await response.json()) as { user: string };
    return { user: body.user };
  },
});
