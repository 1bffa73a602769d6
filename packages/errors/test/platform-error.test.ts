import { describe, expect, it } from 'vitest';
import { errorCatalog, isPlatformError, PlatformError } from '../src/index.ts';

describe('PlatformError', () => {
  it('takes status and retryable from the catalog for a known code', () => {
    const error = new PlatformError({ code: 'SEARCH_UNAVAILABLE', message: 'db restarting' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PlatformError');
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('db restarting');
  });

  it('defaults an unknown code to a non-retryable 500 and lets the caller override', () => {
    expect(new PlatformError({ code: 'MY_CODE', message: 'x' })).toMatchObject({
      status: 500,
      retryable: false,
    });
    expect(
      new PlatformError({ code: 'MY_CODE', message: 'x', status: 418, retryable: true }),
    ).toMatchObject({
      status: 418,
      retryable: true,
    });
  });

  it('forwards cause but never serialises it', () => {
    const cause = new Error('secret connection string postgres://u:pw@h/db');
    const error = new PlatformError({ code: 'INTERNAL', message: 'failed', cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).not.toContain('pw@');
    expect(error.toJSON()).toEqual({
      code: 'INTERNAL',
      message: 'failed',
      status: 500,
      retryable: false,
    });
  });

  it('is recognised across copies of the package (brand, not prototype)', () => {
    // An error built by another copy has another class but the same registered brand symbol.
    const foreign = Object.create(Error.prototype) as Record<PropertyKey, unknown>;
    Object.defineProperty(foreign, Symbol.for('@platform/errors.PlatformError'), { value: true });
    foreign.code = 'AUTH_REQUIRED';
    expect(foreign instanceof PlatformError).toBe(true);
    expect(isPlatformError(foreign, 'AUTH_REQUIRED')).toBe(true);
    expect(isPlatformError(foreign, 'INTERNAL')).toBe(false);
  });

  it('rejects look-alikes', () => {
    const lookAlike = Object.assign(new Error('x'), {
      code: 'AUTH_REQUIRED',
      name: 'PlatformError',
    });
    expect(isPlatformError(lookAlike)).toBe(false);
    expect(isPlatformError(null)).toBe(false);
    expect(isPlatformError('AUTH_REQUIRED')).toBe(false);
  });
});

describe('errorCatalog', () => {
  it('lists every code of spec section 7.2', () => {
    const spec = [
      'AUTH_REQUIRED',
      'IDEMPOTENCY_KEY_REUSED',
      'QUEUE_NOT_ACTIVE',
      'FILE_INPUT_CHANGED',
      'SEARCH_NOT_DECLARED',
      'SEARCH_INPUT_INVALID',
      'SEARCH_MODEL_MISMATCH',
      'SEARCH_DIMENSION_MISMATCH',
      'SEARCH_RESULT_TOO_LARGE',
      'SEARCH_UNAVAILABLE',
      'INTEGRATION_RECONNECT_REQUIRED',
      'INTEGRATION_CONNECTION_REQUIRED',
      'INTEGRATION_USER_REQUIRED',
      'INTEGRATION_TEST_CONNECTION_REQUIRED',
      'INTEGRATION_OAUTH_FUNCTION_NOT_INVOCABLE',
      'INTEGRATION_PROVIDER_FAILED',
      'INTEGRATION_PROVIDER_UNAVAILABLE',
    ];
    for (const code of spec) expect(errorCatalog).toHaveProperty(code);
  });

  it('marks exactly the spec retryable codes among the spec codes as retryable', () => {
    expect(errorCatalog.SEARCH_UNAVAILABLE.retryable).toBe(true);
    expect(errorCatalog.INTEGRATION_PROVIDER_UNAVAILABLE.retryable).toBe(true);
    expect(errorCatalog.INTEGRATION_PROVIDER_FAILED.retryable).toBe(false);
    expect(errorCatalog.SEARCH_RESULT_TOO_LARGE.retryable).toBe(false);
  });

  it('has upper-snake codes, a meaning for each, and statuses that are HTTP or 0 for transport', () => {
    for (const [code, entry] of Object.entries(errorCatalog)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(entry.meaning.length).toBeGreaterThan(10);
      expect(entry.status === 0 || (entry.status >= 400 && entry.status <= 599)).toBe(true);
    }
  });
});
