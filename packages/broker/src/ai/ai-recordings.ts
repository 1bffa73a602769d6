import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The recorded provider answers of record-and-replay mode, in the app folder. */
export const AI_RECORDINGS_FILE = 'ai-recordings.json';

interface Recording {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

type FetchFunction = typeof globalThis.fetch;

/**
 * The key of a provider request: its path and JSON body without the model name, so recordings
 * replay whatever models (or none) are configured, and hold no URL, key or model name.
 */
function keyOf(url: string, body: unknown): string {
  const path = new URL(url).pathname.replace(
    /^.*?(\/(chat\/completions|images\/generations|completions))$/,
    '$1',
  );
  let json: unknown = body;
  if (typeof body === 'string') {
    try {
      const { model: _model, ...rest } = JSON.parse(body) as Record<string, unknown>;
      json = rest;
    } catch {
      json = body;
    }
  }
  return createHash('sha256')
    .update(`${path}\n${JSON.stringify(json)}`)
    .digest('hex');
}

async function load(file: string): Promise<Record<string, Recording>> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, Recording>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${AI_RECORDINGS_FILE} is not valid JSON`);
  }
}

/**
 * A `fetch` for the provider that stores every successful answer in `ai-recordings.json` of the
 * app folder, keyed by a digest of the request (path and body without the model).
 */
export async function recordingFetch(
  appDir: string,
  inner: FetchFunction = fetch,
): Promise<FetchFunction> {
  const file = join(appDir, AI_RECORDINGS_FILE);
  const recordings = await load(file);
  let writing = Promise.resolve();
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await inner(input, init);
    if (!response.ok) return response;
    const body = await response.text();
    recordings[keyOf(url, init?.body)] = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? 'application/json',
      body,
    };
    // One write at a time, each replacing the file whole.
    writing = writing.then(async () => {
      await writeFile(`${file}.tmp`, `${JSON.stringify(recordings, null, 2)}\n`);
      await rename(`${file}.tmp`, file);
    });
    await writing;
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/**
 * A `fetch` that answers from `ai-recordings.json` only, never the network. A request with no
 * recording fails (the Function gets `AI_PROVIDER_FAILED`; the broker log says what to do).
 */
export async function replayFetch(appDir: string): Promise<FetchFunction> {
  const recordings = await load(join(appDir, AI_RECORDINGS_FILE));
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const recording = recordings[keyOf(url, init?.body)];
    if (!recording) {
      throw new Error(
        `no recorded answer for this request in ${AI_RECORDINGS_FILE}; run once with PLATFORM_AI_MODE=record`,
      );
    }
    return new Response(recording.body, {
      status: recording.status,
      headers: { 'content-type': recording.contentType },
    });
  };
}
