import { defineFunction, PLATFORM_SDK_VERSION, s } from '@platform/server';

/**
 * The landing page's public facts: whether the caller is signed in, and the tips everyone may
 * read (RLS policy `tips_read`). Also served at `GET /api/stats`.
 */
export default defineFunction({
  input: s.object({}),
  handler: async ({ user, data, http }) => {
    const tips = await data.table<{ id: string; text: string }>('tips').list({ limit: 10 });
    return {
      signedIn: user !== null,
      tips: tips.map((tip) => tip.text),
      sdkVersion: PLATFORM_SDK_VERSION,
      via: http ? 'route' : 'call',
    };
  },
});
