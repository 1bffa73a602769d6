import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InvocationGrant } from '../../src/functions/invocation-tokens.ts';
import { anonymousCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { type OpenAiStub, startOpenAiStub } from './openai-stub.ts';

const KEY = 'sk-record-1a2b3c4d';
const grant: InvocationGrant = {
  requestId: 'req_replay',
  functionName: 'ask',
  caller: anonymousCaller,
  sdkVersion: '2.6.0',
  secrets: [],
  emailAliases: [],
};

let stub: OpenAiStub | undefined;
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await stub?.close();
});

describe('record and replay', () => {
  it('records real answers into the app folder and replays them offline', async () => {
    stub = await startOpenAiStub(KEY);
    const recording = await brokerFor(
      {},
      { ai: { baseUrl: stub.baseUrl, apiKey: KEY, models: { text: 'rec-model' }, mode: 'record' } },
    );
    cleanups.push(recording.cleanup);
    const live = await recording.broker.ai.generateText({ prompt: 'summarise my week' }, { grant });
    const streamed = await joined(
      await recording.broker.ai.streamText({ prompt: 'stream it' }, { grant }),
    );
    await recording.broker.close();
    await stub.close();
    stub = undefined;

    const file = await readFile(join(recording.appDir, 'ai-recordings.json'), 'utf8');
    expect(file).not.toContain(KEY);

    // No endpoint, no key, no network: only the recordings.
    const replaying = await brokerFor({ 'ai-recordings.json': file }, { ai: { mode: 'replay' } });
    cleanups.push(replaying.cleanup);
    expect(
      await replaying.broker.ai.generateText({ prompt: 'summarise my week' }, { grant }),
    ).toEqual(live);
    expect(
      await joined(await replaying.broker.ai.streamText({ prompt: 'stream it' }, { grant })),
    ).toBe(streamed);
    await expect(
      replaying.broker.ai.generateText({ prompt: 'never recorded' }, { grant }),
    ).rejects.toMatchObject({ code: 'AI_PROVIDER_FAILED' });
    expect(replaying.lines.some((l) => l.includes('PLATFORM_AI_MODE=record'))).toBe(true);
  });
});

async function joined(stream: ReadableStream<string>): Promise<string> {
  const reader = stream.getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += value;
  }
}
