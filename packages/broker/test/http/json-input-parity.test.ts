// The JSON body rules (depth, NUL, `__proto__`, out-of-range numbers) give the same answer in
// the broker and in the test kit's mock broker, for the same runtime route body.
import { errorResponse, isPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { createMockBroker } from '@platform/server/testing';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../src/http/body.ts';

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const bodies: Record<string, string> = {
  [`nested ${limits.json.maxDepth + 1} levels`]: `{"row":{"meta":${deep(limits.json.maxDepth - 1)}}}`,
  'nested 5,000 levels': `{"row":{"meta":${deep(5000)}}}`,
  'a NUL in a string': '{"row":{"title":"a\\u0000b"}}',
  'a NUL in a key': '{"row":{"ti\\u0000tle":"a"}}',
  'a __proto__ key': '{"row":{"__proto__":{"title":"a"}}}',
  '1e309': '{"row":{"n":1e309}}',
};

async function brokerAnswer(body: string): Promise<{ status: number; code: string }> {
  const request = new Request('http://localhost/x', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  try {
    await readJsonBody(request, { maxBytes: 1024 * 1024 });
    return { status: 200, code: 'OK' };
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    const response = errorResponse(error);
    return { status: response.status, code: error.code };
  }
}

async function kitAnswer(body: string): Promise<{ status: number; code: string }> {
  const kit = createMockBroker({ data: { things: [] } });
  const response = await kit.fetch(
    new Request(`${kit.url}/_platform/runtime/data/things/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${kit.token}` },
      body,
    }),
  );
  const json = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: json.error?.code ?? 'OK' };
}

describe('JSON body rules', () => {
  for (const [name, body] of Object.entries(bodies)) {
    it(`${name}: 400 INVALID_REQUEST in the broker and the test kit`, async () => {
      const broker = await brokerAnswer(body);
      expect(broker).toEqual({ status: 400, code: 'INVALID_REQUEST' });
      expect(await kitAnswer(body)).toEqual(broker);
    });
  }

  it(`nesting of exactly ${limits.json.maxDepth} levels is accepted by both`, async () => {
    const body = `{"row":{"meta":${deep(limits.json.maxDepth - 2)}}}`;
    expect(await brokerAnswer(body)).toEqual({ status: 200, code: 'OK' });
    expect(await kitAnswer(body)).toEqual({ status: 200, code: 'OK' });
  });
});
