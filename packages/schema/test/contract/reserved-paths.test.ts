import { describe, expect, it } from 'vitest';
import {
  canonicalPath,
  isUnderPrefix,
  reservedPathPrefixes,
  reservedPrefixOf,
} from '../../src/routes.ts';

describe('the reserved path prefixes', () => {
  it('are the platform pages, the owner API and the REST API', () => {
    expect([...reservedPathPrefixes]).toEqual(['/_platform', '/v1', '/rest']);
  });

  it.each([
    ['/_platform/api/session', '/_platform'],
    ['//_platform/auth/sign-in', '/_platform'],
    ['/_PLATFORM/broker', '/_platform'],
    ['/V1/apps/x', '/v1'],
    ['/v1/', '/v1'],
    ['/app/../v1/apps', '/v1'],
    ['/./rest/v1/todos', '/rest'],
    ['/Rest/V1/todos', '/rest'],
  ])('hold for %s however it is spelled', (path, prefix) => {
    expect(reservedPrefixOf(path)).toBe(prefix);
  });

  it.each(['/', '/index.html', '/restaurants', '/v10', '/_platformer/x', '/api/v1'])(
    'leave %s to the app',
    (path) => {
      expect(reservedPrefixOf(path)).toBeUndefined();
    },
  );

  it('compare canonical forms', () => {
    expect(canonicalPath('//V1/./apps/')).toBe('/v1/apps');
    expect(canonicalPath('/a/../../b')).toBe('/b');
    expect(isUnderPrefix('/v1/Apps/x', '/v1/apps')).toBe(true);
    expect(isUnderPrefix('/v1/appsx', '/v1/apps')).toBe(false);
  });
});
