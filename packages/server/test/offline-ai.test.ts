import { inflateSync } from 'node:zlib';
import { isPlatformError, type JsonObject } from '@platform/errors';
import { s, toJSONSchema } from '@platform/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOfflineAi, parseAiFixtures } from '../src/testing/index.ts';

const ai = createOfflineAi();
const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema) as JsonObject;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isPlatformError(error) ? error.code : 'not a PlatformError';
  }
  return undefined;
}

describe('offline AI: text', () => {
  it('answers the same request identically and different requests differently', () => {
    const a = ai.generateText({ prompt: 'Suggest a title for my list' });
    expect(createOfflineAi().generateText({ prompt: 'Suggest a title for my list' })).toEqual(a);
    expect(a.text).toContain('Suggest a title for my list');
    expect(
      ai.generateText({ prompt: 'Suggest a title for my list', instructions: 'Be brief' }).text,
    ).not.toBe(a.text);
  });

  it('streams the same text in several chunks', () => {
    const chunks = ai.streamText({ prompt: 'Write a haiku' });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.join('')).toBe(ai.generateText({ prompt: 'Write a haiku' }).text);
  });

  it('refuses a blank prompt', () => {
    expect(codeOf(() => ai.generateText({ prompt: '   ' }))).toBe('AI_INPUT_INVALID');
  });
});

describe('offline AI: generateObject', () => {
  it('produces a value valid for a schema with required fields, enums, formats, bounds and arrays', () => {
    const schema = z.strictObject({
      id: z.uuid(),
      at: z.iso.datetime(),
      day: z.iso.date(),
      email: z.email(),
      title: z.string().min(3).max(12),
      priority: z.enum(['low', 'high']),
      score: z.number().gt(1).lt(2),
      count: z.int().min(5).max(7),
      tags: z.array(z.string()).min(3).max(4),
      owner: z.strictObject({ name: z.string(), ids: z.array(z.uuid()).length(2) }),
      note: z.string().nullable().optional(),
      done: z.boolean(),
    });
    const { object } = ai.generateObject({ prompt: 'Plan my week', schema: jsonSchema(schema) });
    expect(schema.safeParse(object).success).toBe(true);
    expect(ai.generateObject({ prompt: 'Plan my week', schema: jsonSchema(schema) })).toEqual({
      object,
    });
  });

  it('satisfies what the SDK sends for the s helpers', () => {
    const schema = s.object({
      title: s.string({ minLength: 1, maxLength: 200 }),
      listId: s.uuid(),
      tags: s.array(s.string(), { maxItems: 10 }),
      priority: s.enum(['low', 'high']),
      note: s.optional(s.nullable(s.string())),
    });
    const { object } = ai.generateObject({
      prompt: 'A todo',
      schema: toJSONSchema(schema) as JsonObject,
    });
    expect(schema.safeParse(object).success).toBe(true);
  });

  it('refuses schemas no value satisfies, naming the place', () => {
    const cases = [
      z.strictObject({ n: z.number().min(5).max(1) }),
      z.strictObject({ xs: z.array(z.string()).min(3).max(2) }),
      z.strictObject({ s: z.string().min(5).max(2) }),
      z.strictObject({ n: z.int().gt(1).lt(2) }),
      z.strictObject({ never: z.never() }),
    ];
    for (const schema of cases) {
      expect(codeOf(() => ai.generateObject({ prompt: 'x', schema: jsonSchema(schema) }))).toBe(
        'AI_INPUT_INVALID',
      );
    }
  });
});

describe('offline AI: generateImage', () => {
  it('returns a valid PNG derived from the prompt', () => {
    const { data, contentType } = ai.generateImage({ prompt: 'a red fox' });
    expect(contentType).toBe('image/png');
    expect([...data.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const view = new DataView(data.buffer, data.byteOffset);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([64, 64]);
    const idatLength = view.getUint32(33);
    const pixels = inflateSync(data.subarray(41, 41 + idatLength));
    expect(pixels.byteLength).toBe(64 * (64 * 3 + 1));
    expect(ai.generateImage({ prompt: 'a red fox' }).data).toEqual(data);
    expect(ai.generateImage({ prompt: 'a blue fox' }).data).not.toEqual(data);
  });
});

describe('offline AI: fixtures', () => {
  it('pins answers by substring or regular expression', () => {
    const pinned = createOfflineAi({
      fixtures: parseAiFixtures([
        { match: 'title', text: 'Groceries' },
        { match: '/^summari[sz]e/i', object: { summary: 'short' } },
      ]),
    });
    expect(pinned.generateText({ prompt: 'Suggest a title' }).text).toBe('Groceries');
    expect(pinned.streamText({ prompt: 'Suggest a title' }).join('')).toBe('Groceries');
    expect(pinned.generateObject({ prompt: 'Summarize this', schema: {} }).object).toEqual({
      summary: 'short',
    });
    expect(pinned.generateText({ prompt: 'other' }).text).toBe(
      ai.generateText({ prompt: 'other' }).text,
    );
  });

  it('explains a malformed fixtures file', () => {
    expect(() => parseAiFixtures([{ match: 'x' }])).toThrow(/needs "text" or "object"/);
    expect(() => parseAiFixtures([{ match: '/(/', text: 'y' }])).toThrow(/regular expression/);
    expect(() => parseAiFixtures({ match: 'x' })).toThrow(/list/);
  });
});
