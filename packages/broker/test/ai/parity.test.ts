// The test kit (@platform/server/testing) and the broker check AI attachments alike: both run
// `checkWireAttachments` of @platform/schema/contract on what reaches them, managed files
// included, so the same attachments are taken or refused with the same code (a PDF beside an
// image, a PDF over its page limit, a file that is neither image nor PDF).
import type { FileRef } from '@platform/server';
import { createTestContext, encodePng } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationGrant } from '../../src/functions/invocation-tokens.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { gif, pdf } from './attachment-fixtures.ts';

const USER = '00000000-0000-4000-8000-000000000003';
const grant: InvocationGrant = {
  requestId: 'req_ai_parity',
  functionName: 'reader',
  caller: userCaller(USER),
  sdkVersion: '2.6.0',
  secrets: [],
  emailAliases: [],
};

const png = encodePng(1, 1, new Uint8Array([255, 0, 0]));
/** Managed files, the same bytes on both sides. */
const files = {
  report: { data: pdf(3), name: 'report.pdf', contentType: 'application/pdf' },
  long: { data: pdf(21), name: 'long.pdf', contentType: 'application/pdf' },
  photo: { data: png, name: 'photo.png', contentType: 'image/png' },
  notes: { data: new TextEncoder().encode('hello'), name: 'notes.txt', contentType: 'text/plain' },
} as const;
type FileName = keyof typeof files;
type Attachment =
  | { file: FileName | 'missing' }
  | { image: Uint8Array; contentType: 'image/png' | 'image/gif' };

let env: Awaited<ReturnType<typeof brokerFor>>;
const refs = new Map<string, string>();
beforeAll(async () => {
  env = await brokerFor({});
  for (const [name, file] of Object.entries(files)) {
    refs.set(name, (await env.broker.files.upload(grant.caller, { ...file })).ref);
  }
});
afterAll(() => env?.cleanup());

type Outcome = 'answered' | { code: string };
async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    await run();
    return 'answered';
  } catch (error) {
    return { code: (error as { code: string }).code };
  }
}

const invalid = { code: 'AI_INPUT_INVALID' };
const cases: Array<[string, Attachment[], Outcome]> = [
  [
    'an image in memory and a managed one',
    [{ image: png, contentType: 'image/png' }, { file: 'photo' }],
    'answered',
  ],
  ['one PDF of three pages', [{ file: 'report' }], 'answered'],
  [
    'a PDF together with an image in memory',
    [{ file: 'report' }, { image: png, contentType: 'image/png' }],
    invalid,
  ],
  ['a PDF together with a managed image', [{ file: 'photo' }, { file: 'report' }], invalid],
  ['two PDFs', [{ file: 'report' }, { file: 'report' }], invalid],
  ['a PDF of 21 pages', [{ file: 'long' }], invalid],
  ['a managed file that is neither image nor PDF', [{ file: 'notes' }], invalid],
  ['an animated GIF', [{ image: gif(2), contentType: 'image/gif' }], invalid],
  ['a file that does not exist', [{ file: 'missing' }], { code: 'FILE_NOT_FOUND' }],
];

describe('AI attachments: test kit and broker agree', () => {
  it.each(cases)('%s', async (_, attachments, expected) => {
    const kit = createTestContext({ user: { id: USER }, files });
    const fromKit = await outcome(() =>
      kit.ai.generateText({
        prompt: 'Describe',
        attachments: attachments.map((a) =>
          'file' in a
            ? { type: 'file' as const, file: a.file as FileRef }
            : { type: 'image' as const, data: a.image, contentType: a.contentType },
        ),
      }),
    );
    const fromBroker = await outcome(() =>
      env.broker.ai.generateText(
        {
          prompt: 'Describe',
          attachments: attachments.map((a) =>
            'file' in a
              ? { type: 'file' as const, file: refs.get(a.file) ?? 'file_missing' }
              : {
                  type: 'image' as const,
                  data: Buffer.from(a.image).toString('base64'),
                  contentType: a.contentType,
                },
          ),
        },
        { grant },
      ),
    );
    expect(fromBroker).toEqual(expected);
    expect(fromKit).toEqual(fromBroker);
  });
});
