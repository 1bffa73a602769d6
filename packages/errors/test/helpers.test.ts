import { describe, expect, it } from 'vitest';
import { errors, isPlatformError } from '../src/index.ts';

describe('errors helpers', () => {
  const cases = [
    ['badRequest', 400, false],
    ['unauthorized', 401, false],
    ['forbidden', 403, false],
    ['notFound', 404, false],
    ['conflict', 409, false],
    ['unavailable', 503, true],
  ] as const;

  it.each(cases)('%s gives HTTP %i, retryable %s', (name, status, retryable) => {
    const error = errors[name]('TODO_NOT_FOUND', 'No todo 42', { id: '42' });
    expect(isPlatformError(error, 'TODO_NOT_FOUND')).toBe(true);
    expect(error).toMatchObject({
      status,
      retryable,
      message: 'No todo 42',
      details: { id: '42' },
    });
  });

  it('leaves details undefined when none are given', () => {
    expect(errors.conflict('ALREADY_DONE', 'done').details).toBeUndefined();
  });

  it('throws TypeError on programmer misuse', () => {
    expect(() => errors.badRequest('not upper', 'x')).toThrow(TypeError);
    expect(() => errors.badRequest('' as string, 'x')).toThrow(TypeError);
    expect(() => errors.badRequest('OK', 42 as unknown as string)).toThrow(TypeError);
  });
});
