import { limits } from '@platform/schema';
import { encodePng } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationGrant } from '../../src/functions/invocation-tokens.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { gif, pdf } from './attachment-fixtures.ts';

const caller = userCaller('00000000-0000-4000-8000-000000000002');
const grant: InvocationGrant = {
  requestId: 'req_attach',
  functionName: 'reader',
  caller,
  sdkVersion: '2.6.0',
  secrets: [],
  emailAliases: [],
};

const png = encodePng(1, 1, new Uint8Array([255, 0, 0]));
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const image = (bytes: Uint8Array, contentType: 'image/png' | 'image/jpeg' | 'image/gif') => ({
  type: 'image' as const,
  data: b64(bytes),
  contentType,
});

/** A 20-page PDF padded with a comment to exactly `size` bytes. */
function pdfOfSize(size: number): Uint8Array {
  const small = pdf(20);
  const padded = new Uint8Array(size).fill(0x20);
  padded.set(small.subarray(0, small.length - 6));
  // The padding is a comment line before `%%EOF`, which stays the file's last line.
  padded[small.length - 6] = 0x25;
  padded.set(new TextEncoder().encode('\n%%EOF\n'), size - 7);
  return padded;
}

let env: Awaited<ReturnType<typeof brokerFor>>;
const upload = async (data: Uint8Array, contentType: string) =>
  (await env.broker.files.upload(caller, { data, name: 'f', contentType })).ref;

beforeAll(async () => {
  env = await brokerFor({});
});

afterAll(async () => {
  await env?.cleanup();
});

const ask = (attachments: unknown[]) =>
  env.broker.ai.generateText({ prompt: 'Describe', attachments: attachments as never }, { grant });

describe('AI attachments checked by the broker (it does not trust the SDK)', () => {
  it('accepts images by their bytes, managed or in memory, and one PDF of 20 pages', async () => {
    const ref = await upload(png, 'image/png');
    const twoGifs = [image(gif(1), 'image/gif'), image(png, 'image/png')];
    await expect(ask([{ type: 'file', file: ref }, ...twoGifs])).resolves.toMatchObject({
      text: expect.stringContaining('3 attachments'),
    });
    await expect(
      ask([{ type: 'file', file: await upload(pdf(20), 'application/pdf') }]),
    ).resolves.toBeDefined();
  });

  it('takes a PDF of exactly 20 MiB and refuses one a byte larger', async () => {
    const { pdfMaxBytes } = limits.ai;
    const atLimit = pdfOfSize(pdfMaxBytes);
    expect(atLimit.byteLength).toBe(pdfMaxBytes);
    await expect(
      ask([{ type: 'file', file: await upload(atLimit, 'application/pdf') }]),
    ).resolves.toMatchObject({ text: expect.stringContaining('1 attachment') });
    const over = await upload(pdfOfSize(pdfMaxBytes + 1), 'application/pdf');
    await expect(ask([{ type: 'file', file: over }])).rejects.toMatchObject({
      code: 'AI_INPUT_INVALID',
      details: { index: 0, limit: pdfMaxBytes },
    });
  }, 30_000);

  it('refuses what spec 2.6 and the limits of section 8 rule out, naming the attachment', async () => {
    const pdfRef = await upload(pdf(21), 'application/pdf');
    const mislabelled = await upload(png, 'image/jpeg');
    const cases: [string, unknown[]][] = [
      ['animated GIF', [image(gif(2), 'image/gif')]],
      ['PNG declared as JPEG', [image(png, 'image/jpeg')]],
      ['managed PNG stored as JPEG', [{ type: 'file', file: mislabelled }]],
      ['fifth attachment', Array(5).fill(image(png, 'image/png'))],
      ['21-page PDF', [{ type: 'file', file: pdfRef }]],
      ['PDF with an image', [{ type: 'file', file: pdfRef }, image(png, 'image/png')]],
      ['remote URL', [{ type: 'file', file: 'https://example.com/cat.png' }]],
      [
        'text bytes',
        [{ type: 'file', file: await upload(new TextEncoder().encode('hello'), 'text/plain') }],
      ],
    ];
    for (const [what, attachments] of cases) {
      await expect(ask(attachments), what).rejects.toMatchObject({ code: 'AI_INPUT_INVALID' });
    }
  });

  it('reads managed files as the caller: a missing file or a file changed after its job grant fails', async () => {
    await expect(ask([{ type: 'file', file: 'file_missing' }])).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
    const ref = await upload(png, 'image/png');
    await env.broker.files.replace(caller, ref, { data: png, name: 'g', contentType: 'image/png' });
    const delegated: InvocationGrant = {
      ...grant,
      fileGrant: { files: [{ id: ref, generation: 1 }], expiresAt: new Date(Date.now() + 60_000) },
    };
    await expect(
      env.broker.ai.generateText(
        { prompt: 'Describe', attachments: [{ type: 'file', file: ref }] },
        { grant: delegated },
      ),
    ).rejects.toMatchObject({ code: 'FILE_INPUT_CHANGED' });
  });
});
