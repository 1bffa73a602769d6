import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvocationTokens } from '../../src/functions/invocation-tokens.ts';
import { randomBase64url } from '../../src/kernel/ids.ts';

const grant = {
  requestId: 'req_1',
  functionName: 'echo',
  caller: { kind: 'anonymous' as const },
  sdkVersion: '2.6.0',
  secrets: [],
  emailAliases: [],
};

afterEach(() => {
  vi.useRealTimers();
});

describe('InvocationTokens', () => {
  it('refuses an expired token even before a sweep removed it', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const tokens = new InvocationTokens();
    const token = tokens.mint(grant, 100);
    expect(tokens.verify(token)).toEqual(grant);
    vi.setSystemTime(1_000_100);
    // A mint within the sweep interval does not sweep; `verify` still checks the expiry.
    tokens.mint(grant, 60_000);
    expect(tokens.verify(token)).toBeUndefined();
  });

  it('sweeps expired tokens out when minting, at most once a second', () => {
    vi.useFakeTimers({ now: 2_000_000 });
    const tokens = new InvocationTokens();
    for (let i = 0; i < 5; i++) tokens.mint(grant, 10);
    vi.setSystemTime(2_005_000);
    tokens.mint(grant, 60_000);
    expect(tokens.size).toBe(1);
  });
});

describe('randomBase64url', () => {
  it('hands out distinct strings of the asked length', () => {
    const seen = new Set<string>();
    // More than one pool's worth, so a refill is crossed.
    for (let i = 0; i < 500; i++) {
      const id = randomBase64url(24);
      expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(500);
  });

  it('refuses sizes outside the pool', () => {
    expect(() => randomBase64url(0)).toThrow(TypeError);
    expect(() => randomBase64url(5000)).toThrow(TypeError);
  });
});
