import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestContext } from '@platform/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';
import probe from './ai-probe.ts';

const USER = '00000000-0000-4000-8000-000000000001';

const files = async () => ({
  'functions/probe.ts': await readFile(join(import.meta.dirname, 'ai-probe.ts'), 'utf8'),
  'functions/story.ts': `
import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ prompt: s.string() }),
  handler: (ctx) => ctx.ai.streamText({ prompt: ctx.input.prompt }),
});
`,
  'ai-fixtures.yaml': `
- match: "/^suggest a title/i"
  text: Weekend groceries
`,
});

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(await files());
  await env.broker.addFunction({
    name: 'probe',
    entrypoint: 'functions/probe.ts',
    access: 'public',
  });
  await env.broker.addFunction({
    name: 'story',
    entrypoint: 'functions/story.ts',
    access: 'public',
  });
});

afterAll(async () => {
  await env?.cleanup();
});

const grant = {
  requestId: 'req_ai_test',
  functionName: 'probe',
  caller: userCaller(USER),
  sdkVersion: '2.6.0',
  secrets: [],
  emailAliases: [],
};

describe('ctx.ai under the broker with no configuration', () => {
  it('serves all four calls offline, identically on every call, and as the test kit does', async () => {
    const call = async () => {
      const response = await callOverHttp(env.broker, 'probe', { prompt: 'Plan a picnic' });
      expect(response.status).toBe(200);
      return ((await response.json()) as { result: Record<string, unknown> }).result;
    };
    const first = (await call()) as {
      text: string;
      streamed: string;
      image: { contentType: string };
    };
    expect(await call()).toEqual(first);
    expect(first.text).toContain('Plan a picnic');
    expect(first.streamed).toContain('Plan a picnic');
    expect(first.image.contentType).toBe('image/png');

    // The test kit runs the same Function with the same deterministic AI.
    const kit = await probe.run(createTestContext({ input: { prompt: 'Plan a picnic' } }));
    expect(kit).toEqual(first);
  });

  it('streams text from the provider through the Function to the browser', async () => {
    const response = await fetch(`${env.broker.server.url}/_platform/api/functions/story/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Tell a story about a lighthouse keeper' }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const kit = await createTestContext({ input: {} }).ai.generateText({
      prompt: 'Tell a story about a lighthouse keeper',
    });
    expect(text).toBe(kit.text);
  });

  it('answers pinned prompts from ai-fixtures.yaml in the app folder', async () => {
    const { text } = await env.broker.ai.generateText(
      { prompt: 'Suggest a title for milk, eggs' },
      { grant },
    );
    expect(text).toBe('Weekend groceries');
  });

  it('refuses bad input with AI_INPUT_INVALID before any provider call', async () => {
    await expect(env.broker.ai.generateText({ prompt: '  ' }, { grant })).rejects.toMatchObject({
      code: 'AI_INPUT_INVALID',
    });
    await expect(
      env.broker.ai.generateObject(
        {
          prompt: 'x',
          schema: { type: 'object', properties: { n: { type: 'number', minimum: 3, maximum: 1 } } },
        },
        { grant },
      ),
    ).rejects.toMatchObject({ code: 'AI_INPUT_INVALID', details: { field: 'schema' } });
  });

  it('lists AI calls for the dashboard without prompts or outputs', async () => {
    const response = await fetch(
      `${env.broker.server.url}/v1/apps/${env.broker.appId}/ai/calls?limit=100`,
    );
    const body = await response.text();
    expect(response.status).toBe(200);
    const { calls } = JSON.parse(body);
    expect(calls[0]).toMatchObject({ kind: expect.any(String), functionName: expect.any(String) });
    expect(calls.map((c: { kind: string }) => c.kind)).toEqual(
      expect.arrayContaining(['generateText', 'streamText', 'generateObject', 'generateImage']),
    );
    expect(calls.some((c: { outcome: string }) => c.outcome === 'AI_INPUT_INVALID')).toBe(true);
    expect(body).not.toContain('picnic');
    expect(body).not.toContain('Weekend groceries');
    expect(calls.some((c: { content?: unknown }) => 'content' in c)).toBe(false);
  });

  it('shows prompts and outputs in the listing only when the developer opts in', async () => {
    const shown = await brokerFor(await files(), { ai: { showContent: true } });
    try {
      await shown.broker.addFunction({
        name: 'probe',
        entrypoint: 'functions/probe.ts',
        access: 'public',
      });
      const response = await callOverHttp(shown.broker, 'probe', { prompt: 'Plan a picnic' });
      const { result } = (await response.json()) as {
        result: { text: string; streamed: string; object: unknown };
      };
      const listed = await fetch(
        `${shown.broker.server.url}/v1/apps/${shown.broker.appId}/ai/calls`,
      );
      const { calls } = (await listed.json()) as {
        calls: { kind: string; content?: { input: string; output?: string } }[];
      };
      const byKind = Object.fromEntries(calls.map((c) => [c.kind, c.content]));
      expect(byKind.generateText).toEqual({
        input: 'Answer briefly.\n\nPlan a picnic',
        output: result.text,
      });
      expect(byKind.streamText).toEqual({ input: 'Plan a picnic', output: result.streamed });
      expect(byKind.generateObject).toEqual({
        input: 'Plan a picnic',
        output: JSON.stringify(result.object),
      });
      expect(byKind.generateImage?.output).toMatch(/^a PNG image of \d+ bytes$/);
    } finally {
      await shown.cleanup();
    }
  });
});
