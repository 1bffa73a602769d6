import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, REDACTED, Redactor } from '../../src/contract/index.ts';

describe('Redactor', () => {
  it('replaces the longest value first and ignores values shorter than the minimum', () => {
    const redactor = new Redactor();
    redactor.set(['abcd', 'abcdefgh', 'x'.repeat(MIN_SECRET_LENGTH - 1)]);
    expect(redactor.text('abcdefgh abcd xxx')).toBe(`${REDACTED} ${REDACTED} xxx`);
  });

  it('redacts strings, keys and numbers of a structure without changing it', () => {
    const redactor = new Redactor();
    redactor.add(['1234', 'sk_live']);
    const input = { sk_live: ['key sk_live'], n: 12345, ok: 7 };
    expect(redactor.value(input)).toEqual({
      [REDACTED]: [`key ${REDACTED}`],
      n: `${REDACTED}5`,
      ok: 7,
    });
    expect(input.n).toBe(12345);
  });

  it('keeps a held value until every hold of it is released, each release counting once', () => {
    const redactor = new Redactor();
    const first = redactor.hold(['tok_held_1']);
    const second = redactor.hold(['tok_held_1']);
    first();
    first();
    expect(redactor.text('tok_held_1')).toBe(REDACTED);
    second();
    expect(redactor.text('tok_held_1')).toBe('tok_held_1');
  });

  it('redacts its parent’s values too, following later changes of the parent', () => {
    const parent = new Redactor();
    parent.set(['secret_one']);
    const child = new Redactor(parent);
    const release = child.hold(['credential']);
    expect(child.text('secret_one credential')).toBe(`${REDACTED} ${REDACTED}`);
    expect(parent.text('credential')).toBe('credential');
    parent.set(['secret_two']);
    expect(child.text('secret_one secret_two')).toBe(`secret_one ${REDACTED}`);
    release();
    expect(child.text('credential secret_two')).toBe(`credential ${REDACTED}`);
  });

  it('finds a value however deep it is, in keys and numbers too', () => {
    const redactor = new Redactor();
    redactor.set(['needle_9', '4242']);
    let deep: unknown = { here: 'a needle_9 b' };
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(redactor.find(deep)).toBe('needle_9');
    expect(redactor.find({ a: [{ needle_9x: true }] })).toBe('needle_9');
    expect(redactor.find([142420])).toBe('4242');
    expect(redactor.find({ a: ['hay', 1, null, true] })).toBeUndefined();
  });
});
