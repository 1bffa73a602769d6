// An app bundle that uses the whole public surface of @platform/browser.
import { createPlatform, isPlatformError, PlatformError, platform } from '@platform/browser';

const custom = createPlatform({ appUrl: location.origin, timeoutMs: 5_000 });

export async function main(): Promise<void> {
  const user = await platform.auth.currentUser();
  if (!user) location.href = platform.auth.signInUrl();
  try {
    const result = await custom.functions.call('echo', { text: 'hi' });
    console.log(result);
    for await (const chunk of platform.functions.stream('story', {})) console.log(chunk.length);
  } catch (error) {
    if (isPlatformError(error, 'AUTH_REQUIRED') || error instanceof PlatformError) throw error;
  }
}
