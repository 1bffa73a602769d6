import { describe, expectTypeOf, it } from 'vitest';
import {
  type CurrentUser,
  createPlatform,
  type FunctionName,
  type PlatformStream,
  platform,
} from '../src/index.ts';

// What `platform types` emits from platform.yaml and the Functions' schemas and results.
declare module '@platform/browser' {
  interface Register {
    functions: {
      echo: { input: { text: string }; result: { text: string; at: string }; access: 'public' };
      listTodos: { input: { done?: boolean }; result: Array<{ id: string; title: string }> };
      nightly: {
        input: { source: 'platform.cron'; name: string; scheduledAt: string };
        result: null;
        access: 'system';
      };
    };
  }
}

describe('Register', () => {
  it('infers the result from the Function name', () => {
    expectTypeOf(platform.functions.call('echo', { text: 'hi' })).toEqualTypeOf<
      Promise<{ text: string; at: string }>
    >();
    expectTypeOf(createPlatform().functions.call('listTodos', {})).resolves.toEqualTypeOf<
      Array<{ id: string; title: string }>
    >();
  });

  it('checks the input', () => {
    // @ts-expect-error: `text` must be a string
    platform.functions.call('echo', { text: 1 });
    // @ts-expect-error: unknown fields are rejected
    platform.functions.call('echo', { text: 'hi', extra: true });
    // @ts-expect-error: the input is required
    platform.functions.call('echo');
    expectTypeOf(platform.functions.call<'listTodos'>)
      .parameter(1)
      .toEqualTypeOf<{ done?: boolean }>();
  });

  it('rejects unknown and system Functions', () => {
    expectTypeOf<FunctionName>().toEqualTypeOf<'echo' | 'listTodos'>();
    // @ts-expect-error: not a registered Function
    platform.functions.call('nope', {});
    // @ts-expect-error: system Functions cannot be called from a browser
    platform.functions.call('nightly', { source: 'platform.cron', name: 'n', scheduledAt: '' });
  });

  it('types streams and auth', () => {
    expectTypeOf(platform.functions.stream('echo', { text: 'hi' })).toEqualTypeOf<PlatformStream>();
    expectTypeOf(platform.functions.stream('echo', { text: 'hi' })).toExtend<
      AsyncIterable<Uint8Array>
    >();
    expectTypeOf(platform.auth.currentUser()).resolves.toEqualTypeOf<CurrentUser | null>();
    expectTypeOf(platform.auth.signInUrl()).toBeString();
  });
});
