import { defineFunction, s } from '@platform/server';
import { tokenRequest } from './token-request.ts';

/**
 * The `calendar` integration's OAuth exchange: the platform calls it with the authorization
 * code of a person's sign-in, the redirect URI and the PKCE verifier; it never sees an access
 * token before it returns one.
 */
export default defineFunction({
  input: s.object({
    code: s.string({ minLength: 1 }),
    redirectUri: s.string(),
    codeVerifier: s.nullable(s.string()),
  }),
  handler: ({ input, secrets }) =>
    tokenRequest(secrets, {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      ...(input.codeVerifier === null ? {} : { code_verifier: input.codeVerifier }),
    }),
});
