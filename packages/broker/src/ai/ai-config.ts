import { readAiFixtures } from './ai-fixtures-file.ts';
import type { AiProvider } from './ai-provider.ts';
import { recordingFetch, replayFetch } from './ai-recordings.ts';
import { createOfflineProvider } from './offline-provider.ts';

/** A capability the broker picks a model for. */
export type AiCapability = 'text' | 'vision' | 'object' | 'image';

/**
 * How the broker serves `ctx.ai`: the broker's configuration (flags and environment of
 * `platform dev`), never the app's Functions or its secrets.
 */
export interface AiOptions {
  /**
   * Which AI answers: `none` leaves `ctx.ai` unconfigured (every call answers
   * `FEATURE_NOT_AVAILABLE`), `offline` the offline AI even beside a `baseUrl`. @default the
   * endpoint at `baseUrl` when set (or replay), else the offline AI
   */
  readonly provider?: 'none' | 'offline' | undefined;
  /** An OpenAI-compatible endpoint (`…/v1`); without it (and outside replay) the offline AI. */
  readonly baseUrl?: string | undefined;
  /** Sent as a bearer token to `baseUrl`. */
  readonly apiKey?: string | undefined;
  /** The model per capability; a missing one falls back to `text`. */
  readonly models?: Partial<Record<AiCapability, string>> | undefined;
  /**
   * `live` asks the endpoint; `record` asks it and stores the answers in `ai-recordings.json`;
   * `replay` answers from that file only, offline. @default 'live'
   */
  readonly mode?: 'live' | 'record' | 'replay' | undefined;
  /** Longest a provider call may take. @default 120000 */
  readonly timeoutMs?: number | undefined;
  /**
   * Keep each call's prompt and output in the AI calls listing of the dashboard (in memory, on
   * this machine only). Off by default: prompts and outputs are the app's users' data.
   */
  readonly showContent?: boolean | undefined;
}

/**
 * Reads {@link AiOptions} from `PLATFORM_AI_BASE_URL`, `PLATFORM_AI_API_KEY`,
 * `PLATFORM_AI_MODEL` (every capability), `PLATFORM_AI_TEXT_MODEL`, `PLATFORM_AI_VISION_MODEL`,
 * `PLATFORM_AI_OBJECT_MODEL`, `PLATFORM_AI_IMAGE_MODEL`, `PLATFORM_AI_MODE`,
 * `PLATFORM_AI_TIMEOUT_MS` and `PLATFORM_AI_SHOW_CONTENT` (`1` or `0`). Throws on a malformed
 * value.
 */
export function aiOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): AiOptions {
  const value = (name: string) => (env[name]?.trim() ? env[name]?.trim() : undefined);
  const all = value('PLATFORM_AI_MODEL');
  const models: Partial<Record<AiCapability, string>> = {};
  for (const capability of ['text', 'vision', 'object', 'image'] as const) {
    const model = value(`PLATFORM_AI_${capability.toUpperCase()}_MODEL`) ?? all;
    if (model) models[capability] = model;
  }
  const mode = value('PLATFORM_AI_MODE');
  if (mode !== undefined && !['live', 'record', 'replay'].includes(mode)) {
    throw new Error('PLATFORM_AI_MODE must be live, record or replay');
  }
  const timeout = value('PLATFORM_AI_TIMEOUT_MS');
  if (timeout !== undefined && !(Number.isInteger(Number(timeout)) && Number(timeout) > 0)) {
    throw new Error('PLATFORM_AI_TIMEOUT_MS must be a positive integer');
  }
  const show = value('PLATFORM_AI_SHOW_CONTENT');
  if (show !== undefined && show !== '1' && show !== '0') {
    throw new Error('PLATFORM_AI_SHOW_CONTENT must be 1 or 0');
  }
  const baseUrl = value('PLATFORM_AI_BASE_URL');
  if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) {
    throw new Error('PLATFORM_AI_BASE_URL must be an http(s) URL');
  }
  return {
    baseUrl,
    apiKey: value('PLATFORM_AI_API_KEY'),
    models,
    mode: mode as AiOptions['mode'],
    timeoutMs: timeout === undefined ? undefined : Number(timeout),
    showContent: show === '1',
  };
}

// Replay needs no endpoint: requests never leave the broker, so any well-formed URL will do.
const REPLAY_BASE_URL = 'http://replay.invalid/v1';
const REPLAY_MODEL = 'replay';

/**
 * The provider the options describe: the offline AI (with the app's `ai-fixtures.yaml`) by
 * default; an OpenAI-compatible endpoint when `baseUrl` is set; recorded answers in replay;
 * none (`undefined`) when `provider` is `none`.
 */
export async function createAiProvider(
  appDir: string,
  options: AiOptions = {},
): Promise<AiProvider | undefined> {
  if (options.provider === 'none') return undefined;
  if (options.provider === 'offline') return createOfflineProvider(await readAiFixtures(appDir));
  const mode = options.mode ?? 'live';
  if (mode !== 'replay' && options.baseUrl === undefined) {
    if (mode === 'record') throw new Error('PLATFORM_AI_MODE=record needs PLATFORM_AI_BASE_URL');
    return createOfflineProvider(await readAiFixtures(appDir));
  }
  const baseURL = mode === 'replay' ? REPLAY_BASE_URL : (options.baseUrl as string);
  const text = options.models?.text ?? (mode === 'replay' ? REPLAY_MODEL : undefined);
  if (text === undefined) {
    throw new Error(
      'PLATFORM_AI_BASE_URL needs a model: set PLATFORM_AI_MODEL or PLATFORM_AI_TEXT_MODEL',
    );
  }
  const model = (capability: AiCapability) => options.models?.[capability] ?? text;
  const fetch =
    mode === 'record'
      ? await recordingFetch(appDir)
      : mode === 'replay'
        ? await replayFetch(appDir)
        : undefined;
  // Loaded only for a configured provider: the offline AI, the default, does without it.
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    supportsStructuredOutputs: true,
    ...(fetch ? { fetch } : {}),
  });
  return {
    name: mode === 'live' ? 'openai-compatible' : `openai-compatible (${mode})`,
    text: provider.chatModel(model('text')),
    vision: provider.chatModel(model('vision')),
    object: provider.chatModel(model('object')),
    image: provider.imageModel(model('image')),
    ...(mode === 'replay' ? {} : { endpoint: shownEndpoint(baseURL) }),
    confidential: [
      ...(options.apiKey ? [options.apiKey] : []),
      ...(mode === 'replay' ? [] : endpointSecrets(baseURL)),
      ...Object.values(options.models ?? {}),
    ],
  };
}

/**
 * The endpoint as a log line names it: the developer's own address is no secret and the first
 * thing to check when calls fail; credentials or a query in the URL are left out.
 */
function shownEndpoint(baseURL: string): string {
  const url = new URL(baseURL);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

// A URL that carries credentials (user:password@, or a key in its query) is itself a secret;
// a user name alone is not (it may be a common word the redactor would blank everywhere).
function endpointSecrets(baseURL: string): string[] {
  const url = new URL(baseURL);
  if (url.username === '' && url.password === '' && url.search === '') return [];
  return [baseURL, ...[url.password, url.search.slice(1)].filter((s) => s !== '')];
}
