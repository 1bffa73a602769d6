// The AI setting of `platform serve`: which AI answers a deployed app's `ctx.ai`. Unset, none
// (the offline AI is a development aid, not a production model); the offline AI only when the
// operator chooses it; an OpenAI-compatible endpoint when its URL is set.
import { describe, expect, it } from 'vitest';
import { createAiProvider } from '../../src/ai/ai-config.ts';
import { aiOptionsOf } from '../../src/serve/deployed-apps.ts';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const load = (env: Record<string, string>) =>
  loadServeSettings({
    env: { PLATFORM_DATABASE_URL: 'postgres://u@localhost/db', ...env },
    cwd: '/tmp',
  });

/** The AI provider a deployed app gets under the settings of `env`. */
async function providerUnder(env: Record<string, string>): Promise<string | undefined> {
  const loaded = await load(env);
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const dir = await tempDir('serve-ai-');
  try {
    return (await createAiProvider(dir.path, aiOptionsOf(loaded.settings.ai)))?.name;
  } finally {
    await dir.remove();
  }
}

describe('the AI setting of platform serve', () => {
  it('configures no AI when unset, the offline AI only when chosen, the endpoint when its URL is set', async () => {
    expect(await providerUnder({})).toBeUndefined();
    expect(await providerUnder({ PLATFORM_AI_PROVIDER: 'offline' })).toBe('offline');
    const endpoint = { PLATFORM_AI_BASE_URL: 'http://127.0.0.1:1/v1', PLATFORM_AI_MODEL: 'm' };
    expect(await providerUnder(endpoint)).toBe('openai-compatible');
    expect(await providerUnder({ ...endpoint, PLATFORM_AI_PROVIDER: 'openai-compatible' })).toBe(
      'openai-compatible',
    );
  });

  it('names the setting when the choice does not fit the other AI settings', async () => {
    expect(await load({ PLATFORM_AI_PROVIDER: 'local' })).toEqual({
      ok: false,
      problems: ['PLATFORM_AI_PROVIDER: expected offline or openai-compatible.'],
    });
    const offlineWithUrl = await load({
      PLATFORM_AI_PROVIDER: 'offline',
      PLATFORM_AI_BASE_URL: 'https://ai.example.com/v1',
    });
    expect(offlineWithUrl.ok).toBe(false);
    expect(offlineWithUrl.ok ? [] : offlineWithUrl.problems).toEqual([
      expect.stringMatching(/^PLATFORM_AI_PROVIDER: offline takes no PLATFORM_AI_BASE_URL/),
    ]);
    const endpointWithoutUrl = await load({ PLATFORM_AI_PROVIDER: 'openai-compatible' });
    expect(endpointWithoutUrl.ok ? [] : endpointWithoutUrl.problems).toEqual([
      expect.stringMatching(/^PLATFORM_AI_BASE_URL: required when PLATFORM_AI_PROVIDER/),
    ]);
  });
});
