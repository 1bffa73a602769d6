// The lifetimes people read in words (pages, errors, CLI help) are the limits, said in minutes.
import { limits } from '@platform/schema';
import { describe, expect, it } from 'vitest';
import { accessTokenUsage } from '../../src/cli/access-token.ts';
import { inMinutes } from '../../src/kernel/clock.ts';

describe('lifetimes in words', () => {
  it('say whole minutes, one or many', () => {
    expect(inMinutes(60)).toBe('1 minute');
    expect(inMinutes(limits.revealLinkSeconds)).toBe('15 minutes');
    expect(inMinutes(limits.recentSignInSeconds)).toBe('10 minutes');
  });

  it('in the access-token help are the reveal link limit', () => {
    expect(accessTokenUsage).toContain(
      `reveal link for the owner's browser (${inMinutes(limits.revealLinkSeconds)});`,
    );
  });
});
