import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PlatformError } from '@platform/errors';
import { createTestContext } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';
import { waitFor } from '../jobs/engine-helpers.ts';
import streamProbe from './ai-stream-probe.ts';
import { type OpenAiStub, startOpenAiStub } from './openai-stub.ts';

const KEY = 'sk-test-9f8e7d6c5b4a';
const MODELS = {
  text: 'secret-text-model',
  vision: 'secret-vision-model',
  object: 'secret-object-model',
  image: 'secret-image-model',
};

const files = {
  'functions/ask.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ kind: s.string(), prompt: s.string() }),
  handler: async (ctx) => {
    const { kind, prompt } = ctx.input;
    try {
      if (kind === 'text') return await ctx.ai.generateText({ prompt });
      if (kind === 'object') return await ctx.ai.generateObject({ prompt, schema: s.object({ title: s.string() }) });
      if (kind === 'image') {
        const image = await ctx.ai.generateImage({ prompt });
        return { contentType: image.contentType, size: image.data.byteLength };
      }
      const chunks = [];
      const reader = (await ctx.ai.streamText({ prompt })).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
      }
      return { text: chunks.join('') };
    } catch (error) {
      ctx.log.info('ai failed', { error: String(error) });
      return { code: error.code, message: error.message, retryable: error.retryable, details: error.details ?? null };
    }
  },
});
`,
  'functions/peek.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => {
    const reader = (await ctx.ai.streamText({ prompt: 'endless' })).getReader();
    const { value } = await reader.read();
    await reader.cancel();
    return { first: value };
  },
});
`,
  'functions/endless.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: (ctx) => ctx.ai.streamText({ prompt: 'endless' }),
});
`,
};

let stub: OpenAiStub;
let env: Awaited<ReturnType<typeof brokerFor>>;
const seen: string[] = [];

async function ask(kind: string, prompt: string): Promise<Record<string, unknown>> {
  const response = await callOverHttp(env.broker, 'ask', { kind, prompt });
  const text = await response.text();
  seen.push(text);
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { result: Record<string, unknown> }).result;
}

beforeAll(async () => {
  stub = await startOpenAiStub(KEY);
  env = await brokerFor(
    {
      ...files,
      'functions/stream-probe.ts': await readFile(
        join(import.meta.dirname, 'ai-stream-probe.ts'),
        'utf8',
      ),
    },
    {
      ai: { baseUrl: stub.baseUrl, apiKey: KEY, models: MODELS, timeoutMs: 500 },
    },
  );
  await env.broker.addFunction({
    name: 'stream-probe',
    entrypoint: 'functions/stream-probe.ts',
    access: 'public',
  });
  await env.broker.addFunction({ name: 'ask', entrypoint: 'functions/ask.ts', access: 'public' });
  await env.broker.addFunction({ name: 'peek', entrypoint: 'functions/peek.ts', access: 'public' });
  await env.broker.addFunction({
    name: 'endless',
    entrypoint: 'functions/endless.ts',
    access: 'public',
  });
});

afterAll(async () => {
  await env?.cleanup();
  await stub?.close();
});

describe('ctx.ai against an OpenAI-compatible endpoint', () => {
  it('serves the four calls with the configured models and key', async () => {
    expect(await ask('text', 'hello there')).toEqual({ text: 'Stub says: hello there' });
    expect(await ask('stream', 'one two three')).toEqual({ text: 'Stub says: one two three' });
    expect(await ask('object', 'groceries')).toEqual({
      object: { title: 'Stub title for groceries' },
    });
    expect(await ask('image', 'a cat')).toEqual({
      contentType: 'image/png',
      size: expect.any(Number),
    });
    const models = stub.log.requests.map((r) => [r.path, r.body.model]);
    expect(models).toEqual([
      ['/v1/chat/completions', MODELS.text],
      ['/v1/chat/completions', MODELS.text],
      ['/v1/chat/completions', MODELS.object],
      ['/v1/images/generations', MODELS.image],
    ]);
    expect(stub.log.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('turns provider failures into stable codes, retryable where a retry can help', async () => {
    expect(await ask('text', 'rate limit please')).toMatchObject({
      code: 'AI_PROVIDER_UNAVAILABLE',
      retryable: true,
    });
    expect(await ask('text', 'server error please')).toMatchObject({
      code: 'AI_PROVIDER_UNAVAILABLE',
      retryable: true,
    });
    expect(await ask('stream', 'server error please')).toMatchObject({
      code: 'AI_PROVIDER_UNAVAILABLE',
    });
    expect(await ask('text', 'slow please')).toMatchObject({
      code: 'AI_PROVIDER_UNAVAILABLE',
      retryable: true,
    });
    expect(await ask('object', 'bad json please')).toMatchObject({
      code: 'AI_OUTPUT_INVALID',
      retryable: true,
    });
  });

  it('fails a stream whose provider breaks after the first chunk with a coded error, as the test kit does', async () => {
    const response = await callOverHttp(env.broker, 'stream-probe', { prompt: 'break please' });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: unknown };
    expect(result).toEqual({
      received: 'Stub says: ',
      failure: { code: 'AI_PROVIDER_UNAVAILABLE', status: 503, retryable: true },
    });

    // The test kit: the same Function, with a seeded stream that fails at the same point.
    const kit = await streamProbe.run(
      createTestContext({
        input: { prompt: 'break please' },
        ai: {
          streamText: () => [
            'Stub says: ',
            new PlatformError({ code: 'AI_PROVIDER_UNAVAILABLE', message: 'unavailable' }),
          ],
        },
      }),
    );
    expect(kit).toEqual(result);
  });

  it('stops the provider request when the browser cancels a stream', async () => {
    const before = stub.log.cancelledStreams;
    const response = await fetch(
      `${env.broker.server.url}/_platform/api/functions/endless/stream`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('more');
    await reader.cancel();
    await waitFor(() => stub.log.cancelledStreams > before);
  });

  it('stops the provider request when the Function cancels a stream', async () => {
    const before = stub.log.cancelledStreams;
    const response = await callOverHttp(env.broker, 'peek', {});
    expect(await response.json()).toEqual({ result: { first: expect.stringContaining('more') } });
    await waitFor(() => stub.log.cancelledStreams > before);
  });

  it("names the developer's endpoint on a failure, and never shows the key or a model name", async () => {
    const calls = await (
      await fetch(`${env.broker.server.url}/v1/apps/${env.broker.appId}/ai/calls`)
    ).text();
    // The broker's log says which endpoint failed: the developer's own address, no secret.
    const failures = env.lines.filter((line) => line.includes('ai.generateText failed'));
    expect(failures.length).toBeGreaterThan(0);
    for (const line of failures) {
      expect(line).toContain(`ai.generateText failed (openai-compatible at ${stub.baseUrl})`);
    }
    const everything = [...seen, calls, ...env.lines].join('\n');
    for (const confidential of [KEY, ...Object.values(MODELS)]) {
      expect(everything).not.toContain(confidential);
    }
    // What a Function's caller receives still names no endpoint.
    expect(seen.join('\n')).not.toContain(new URL(stub.baseUrl).host);
  });
});
