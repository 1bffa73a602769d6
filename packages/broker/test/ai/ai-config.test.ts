import { describe, expect, it } from 'vitest';
import { aiOptionsFromEnv, createAiProvider } from '../../src/ai/ai-config.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';

describe('AI configuration of platform dev', () => {
  it('reads the endpoint, key, per-capability models, mode and timeout from the environment', () => {
    expect(
      aiOptionsFromEnv({
        PLATFORM_AI_BASE_URL: 'http://127.0.0.1:11434/v1',
        PLATFORM_AI_API_KEY: 'k-123',
        PLATFORM_AI_MODEL: 'llama',
        PLATFORM_AI_VISION_MODEL: 'llava',
        PLATFORM_AI_MODE: 'record',
        PLATFORM_AI_TIMEOUT_MS: '5000',
        PLATFORM_AI_SHOW_CONTENT: '1',
      }),
    ).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'k-123',
      models: { text: 'llama', vision: 'llava', object: 'llama', image: 'llama' },
      mode: 'record',
      timeoutMs: 5000,
      showContent: true,
    });
    expect(aiOptionsFromEnv({})).toMatchObject({
      baseUrl: undefined,
      models: {},
      showContent: false,
    });
  });

  it('refuses malformed settings with a message naming the variable', () => {
    expect(() => aiOptionsFromEnv({ PLATFORM_AI_MODE: 'sometimes' })).toThrow(/PLATFORM_AI_MODE/);
    expect(() => aiOptionsFromEnv({ PLATFORM_AI_TIMEOUT_MS: '-1' })).toThrow(/TIMEOUT_MS/);
    expect(() => aiOptionsFromEnv({ PLATFORM_AI_BASE_URL: 'localhost:1' })).toThrow(/BASE_URL/);
    expect(() => aiOptionsFromEnv({ PLATFORM_AI_SHOW_CONTENT: 'yes' })).toThrow(/SHOW_CONTENT/);
  });

  it('picks the offline AI by default, none or offline when chosen, and refuses endpoints without a model or record without an endpoint', async () => {
    const dir = await tempDir('ai-config-');
    try {
      expect((await createAiProvider(dir.path))?.name).toBe('offline');
      expect(await createAiProvider(dir.path, { provider: 'none' })).toBeUndefined();
      const chosen = { provider: 'offline', baseUrl: 'http://127.0.0.1:1/v1' } as const;
      expect((await createAiProvider(dir.path, chosen))?.name).toBe('offline');
      await expect(
        createAiProvider(dir.path, { baseUrl: 'http://127.0.0.1:1/v1' }),
      ).rejects.toThrow(/PLATFORM_AI_MODEL/);
      await expect(createAiProvider(dir.path, { mode: 'record' })).rejects.toThrow(
        /PLATFORM_AI_BASE_URL/,
      );
      await writeFiles(dir.path, { 'ai-fixtures.yaml': '- match: x\n' });
      await expect(createAiProvider(dir.path)).rejects.toThrow(
        /ai-fixtures.yaml: entry 1 needs "text" or "object"/,
      );
    } finally {
      await dir.remove();
    }
  });

  it('names the endpoint without the credentials a URL may carry, which stay confidential', async () => {
    const dir = await tempDir('ai-config-');
    try {
      const plain = await createAiProvider(dir.path, {
        baseUrl: 'http://127.0.0.1:11434/v1',
        apiKey: 'k-123',
        models: { text: 'llama' },
      });
      expect(plain?.endpoint).toBe('http://127.0.0.1:11434/v1');
      expect(plain?.confidential).toEqual(['k-123', 'llama']);
      const carrying = await createAiProvider(dir.path, {
        baseUrl: 'https://ada:s3cret-pass@ai.example.test/v1?api-key=k-456',
        models: { text: 'llama' },
      });
      expect(carrying?.endpoint).toBe('https://ai.example.test/v1');
      expect(carrying?.confidential).toEqual(
        expect.arrayContaining([
          'https://ada:s3cret-pass@ai.example.test/v1?api-key=k-456',
          's3cret-pass',
          'api-key=k-456',
        ]),
      );
    } finally {
      await dir.remove();
    }
  });
});
