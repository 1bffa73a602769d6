import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeError,
  encodeError,
  errorFromResponse,
  errorResponse,
  errors,
  isPlatformError,
  PlatformError,
  toPlatformError,
} from '../src/index.ts';

describe('error envelope', () => {
  it('round-trips code, message, details, retryable and requestId', async () => {
    const error = errors.notFound('TODO_NOT_FOUND', 'No todo 42', {
      connectUrl: 'https://x/connect',
    });
    const response = errorResponse(error, 'req_1');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    const decoded = await errorFromResponse(response);
    expect(decoded).toMatchObject({
      code: 'TODO_NOT_FOUND',
      message: 'No todo 42',
      status: 404,
      retryable: false,
      details: { connectUrl: 'https://x/connect' },
      requestId: 'req_1',
    });
  });

  it('encodes the documented shape and omits absent fields', () => {
    expect(encodeError(errors.unavailable('BUSY', 'later'))).toEqual({
      error: { code: 'BUSY', message: 'later', retryable: true },
    });
  });

  it('sends transport-only errors as 500', () => {
    const response = errorResponse(new PlatformError({ code: 'NETWORK_ERROR', message: 'x' }));
    expect(response.status).toBe(500);
  });

  it('yields a generic error for bodies that are not envelopes', () => {
    expect(decodeError(502, '<html>Bad gateway</html>')).toMatchObject({
      code: 'INVALID_RESPONSE',
      status: 502,
      retryable: true,
    });
    expect(decodeError(400, '{"error":"nope"}')).toMatchObject({
      code: 'INVALID_REQUEST',
      status: 400,
    });
    expect(decodeError(500, '')).toMatchObject({ code: 'INVALID_RESPONSE', status: 500 });
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999 }),
        fc.oneof(fc.string(), fc.jsonValue()),
        (status, body) => {
          expect(isPlatformError(decodeError(status, body))).toBe(true);
        },
      ),
    );
  });

  it('reads a body that fails mid-stream as a generic error', async () => {
    const body = new ReadableStream({
      pull(controller) {
        controller.error(new Error('reset'));
      },
    });
    const decoded = await errorFromResponse(new Response(body, { status: 503 }));
    expect(decoded).toMatchObject({ code: 'INVALID_RESPONSE', status: 503, retryable: true });
  });

  it('toPlatformError passes platform errors through and wraps the rest', () => {
    const known = errors.forbidden('NOPE', 'no');
    expect(toPlatformError(known)).toBe(known);
    const wrapped = toPlatformError(new Error('boom'), {
      code: 'FUNCTION_FAILED',
      message: 'Function failed',
    });
    expect(wrapped).toMatchObject({
      code: 'FUNCTION_FAILED',
      status: 500,
      message: 'Function failed',
    });
    expect((wrapped.cause as Error).message).toBe('boom');
  });
});
