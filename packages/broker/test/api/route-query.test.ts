import { PlatformError } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import { queryOf } from '../../src/api/app-routes.ts';

describe('the query of a Function route', () => {
  it('keeps every key, repeated keys as arrays', () => {
    expect(queryOf(new URL('http://app/api?a=1&a=2&b=3&constructor=x'))).toEqual({
      a: ['1', '2'],
      b: '3',
      constructor: 'x',
    });
  });

  it('refuses a __proto__ key instead of dropping it', () => {
    for (const search of ['?__proto__=1', '?a=1&__proto__[x]=1&__proto__=2']) {
      const url = new URL(`http://app/api${search}`);
      const error = (() => {
        try {
          queryOf(url);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error, search).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).code).toBe('INVALID_REQUEST');
      expect((error as PlatformError).message).toContain('__proto__');
    }
  });
});
