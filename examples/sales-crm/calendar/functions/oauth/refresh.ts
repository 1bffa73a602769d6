import { defineFunction, s } from '@platform/server';
import { tokenRequest } from './token-request.ts';

/** The `calendar` integration's OAuth refresh: called when the access token is about to expire. */
export default defineFunction({
  input: s.object({ refreshToken: s.string({ minLength: 1 }) }),
  handler: ({ input, secrets }) =>
    tokenRequest(secrets, { grant_type: 'refresh_token', refresh_token: input.refreshToken }),
});
