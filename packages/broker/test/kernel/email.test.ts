import { describe, expect, it } from 'vitest';
import { normalizeEmail, parseEmail } from '../../src/kernel/email.ts';

describe('email addresses', () => {
  it('are compared trimmed and in lower case', () => {
    expect(normalizeEmail('  Ada@Example.COM\n')).toBe('ada@example.com');
    expect(normalizeEmail('ada@example.com')).toBe('ada@example.com');
  });

  it('parse to that form, or to undefined when not one plain address', () => {
    expect(parseEmail(' Ada@Example.com ')).toBe('ada@example.com');
    expect(parseEmail('not an address')).toBeUndefined();
    expect(parseEmail('ada@example.com\nbcc@example.com')).toBeUndefined();
    expect(parseEmail(42)).toBeUndefined();
  });
});
