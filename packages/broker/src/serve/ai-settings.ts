import { z } from 'zod';
import { httpUrl, type SettingName } from './setting-rules.ts';

/**
 * What answers `ctx.ai`: an OpenAI-compatible endpoint, or the offline AI when chosen
 * explicitly.
 */
export type AiSetting =
  | { readonly provider: 'offline' }
  | {
      readonly provider: 'openai-compatible';
      readonly baseUrl: string;
      readonly apiKey?: string | undefined;
      readonly model?: string | undefined;
    };

/** The AI settings, by their key in the config file. */
export const aiNames = {
  aiProvider: { key: 'aiProvider', env: 'PLATFORM_AI_PROVIDER' },
  aiBaseUrl: { key: 'aiBaseUrl', env: 'PLATFORM_AI_BASE_URL' },
  aiApiKey: { key: 'aiApiKey', env: 'PLATFORM_AI_API_KEY' },
  aiModel: { key: 'aiModel', env: 'PLATFORM_AI_MODEL' },
} as const satisfies Record<string, SettingName>;

type AiKey = keyof typeof aiNames;

/** Each AI setting's rule. */
export const aiRules = {
  aiProvider: z.enum(['offline', 'openai-compatible'], {
    message: 'expected offline or openai-compatible',
  }),
  aiBaseUrl: httpUrl,
  aiApiKey: z.string().min(1, 'expected a key'),
  aiModel: z.string().min(1, 'expected a model name'),
} satisfies Record<AiKey, z.ZodType>;

/**
 * Adds to `problems` what is wrong with the AI settings taken together: the offline AI takes no
 * endpoint, and an endpoint needs its base URL (unless that setting already has a problem).
 */
export function addAiProblems(
  values: Readonly<Partial<Record<AiKey, unknown>>>,
  problems: string[],
): void {
  const endpointGiven = [values.aiBaseUrl, values.aiApiKey, values.aiModel].some(
    (value) => value !== undefined,
  );
  if (values.aiProvider === 'offline' && endpointGiven) {
    problems.push(
      `${aiNames.aiProvider.env}: offline takes no ${aiNames.aiBaseUrl.env}, ${aiNames.aiApiKey.env} or ${aiNames.aiModel.env}; leave them out, or choose openai-compatible.`,
    );
  } else if (
    (values.aiApiKey !== undefined ||
      values.aiModel !== undefined ||
      values.aiProvider === 'openai-compatible') &&
    values.aiBaseUrl === undefined &&
    !problems.some((p) => p.startsWith(aiNames.aiBaseUrl.env))
  ) {
    problems.push(
      `${aiNames.aiBaseUrl.env}: required when ${aiNames.aiProvider.env} is openai-compatible or ${aiNames.aiApiKey.env} or ${aiNames.aiModel.env} is set.`,
    );
  }
}

/** The AI setting that checked `values` describe, or none: `ctx.ai` is then not configured. */
export function aiSettingOf(
  values: Readonly<Partial<Record<AiKey, unknown>>>,
): AiSetting | undefined {
  if (values.aiBaseUrl !== undefined) {
    return {
      provider: 'openai-compatible',
      baseUrl: values.aiBaseUrl as string,
      apiKey: values.aiApiKey as string | undefined,
      model: values.aiModel as string | undefined,
    };
  }
  return values.aiProvider === 'offline' ? { provider: 'offline' } : undefined;
}
