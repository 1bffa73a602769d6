import { expectTypeOf, it } from 'vitest';
import { createPlatform } from '../src/index.ts';

// This file is compiled without the augmentation of register.test-d.ts.
it('accepts any name and input, and resolves to unknown, without a Register', () => {
  const platform = createPlatform({ appUrl: 'https://todos.example.app' });
  expectTypeOf(platform.functions.call).parameter(0).toEqualTypeOf<string>();
  expectTypeOf(platform.functions.call).parameter(1).toBeUnknown();
  expectTypeOf(platform.functions.call).returns.resolves.toBeUnknown();
});
