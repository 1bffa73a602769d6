import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../src/http/body.ts';

const post = (body: BodyInit, headers: Record<string, string>) =>
  new Request('http://broker/x', { method: 'POST', body, headers });

describe('readJsonBody', () => {
  it('reads a body of declared length whole', async () => {
    const text = JSON.stringify({ text: 'héllo' });
    const request = post(text, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    });
    expect(await readJsonBody(request, { maxBytes: 100 })).toEqual({ text: 'héllo' });
  });

  it('refuses a body longer than its declared length past the limit', async () => {
    // node's HTTP parser holds a body to its content-length; an in-process Request need not.
    const request = post(JSON.stringify({ text: 'x'.repeat(200) }), {
      'content-type': 'application/json',
      'content-length': '10',
    });
    await expect(readJsonBody(request, { maxBytes: 100 })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('counts bytes, not characters, against the limit', async () => {
    const text = JSON.stringify({ text: 'é'.repeat(60) }); // 60 characters, 120 bytes
    const request = post(text, { 'content-type': 'application/json', 'content-length': '1' });
    await expect(readJsonBody(request, { maxBytes: 100 })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('checks a body without a declared length while reading', async () => {
    const chunk = new TextEncoder().encode('"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"');
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(chunk);
      },
    });
    const request = new Request('http://broker/x', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expect(readJsonBody(request, { maxBytes: 100 })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });
});
