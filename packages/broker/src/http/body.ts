import { PlatformError } from '@platform/errors';
import { findJsonInputProblem, limits } from '@platform/schema';

/** Body size limits of the broker's routes (the spec fixes none; ours, in docs/broker.md). */
export const bodyLimits = {
  /** Function calls, data routes and everything else that carries JSON. */
  json: 1024 * 1024,
  /** File uploads and replaces: a file of `limits.files.maxBytes` as base64, plus the JSON around it. */
  files: Math.ceil((limits.files.maxBytes * 4) / 3) + 64 * 1024,
  /** AI calls: in-memory image attachments of `limits.ai.attachmentsTotalMaxBytes` as base64. */
  ai: Math.ceil((limits.ai.attachmentsTotalMaxBytes * 4) / 3) + 64 * 1024,
} as const;

/**
 * Reads a JSON request body: `UNSUPPORTED_MEDIA_TYPE` (415) unless the content type is JSON,
 * `PAYLOAD_TOO_LARGE` (413) past `maxBytes` (checked while reading, also without a
 * `content-length`), `INVALID_REQUEST` (400) when it does not parse or breaks a rule every JSON
 * body follows (`findJsonInputProblem`: nesting past `limits.json.maxDepth`, a NUL character, a
 * `__proto__` key, a number out of range). An empty body reads as `undefined` when `allowEmpty`.
 */
export async function readJsonBody(
  request: Request,
  options: { maxBytes: number; allowEmpty?: boolean },
): Promise<unknown> {
  const length = Number(request.headers.get('content-length') ?? '0');
  if (length > options.maxBytes) throw tooLarge(options.maxBytes);
  const type = request.headers.get('content-type') ?? '';
  const isJson = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type);
  // A declared non-JSON body is refused before it is read.
  if (type !== '' && !isJson) throw unsupported(type);
  const text = await readBodyText(request, options.maxBytes);
  if (text.length === 0 && options.allowEmpty) return undefined;
  if (!isJson) throw unsupported(type);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PlatformError({
      code: 'INVALID_REQUEST',
      message: 'The request body is not valid JSON.',
    });
  }
  checkJsonInput(value);
  return value;
}

/**
 * Throws `INVALID_REQUEST` (400) with the place when a parsed JSON body breaks a rule every JSON
 * body follows (`findJsonInputProblem`).
 */
export function checkJsonInput(value: unknown): void {
  const problem = findJsonInputProblem(value);
  if (problem) {
    throw new PlatformError({
      code: 'INVALID_REQUEST',
      message: problem.message,
      details: { path: problem.path, maxDepth: limits.json.maxDepth },
    });
  }
}

/** The outcome of `safeParse`, as zod reports it. */
export type SafeParseOutcome<T> =
  | { success: true; data: T }
  | {
      success: false;
      error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
    };

/** The part of a contract (zod) schema the broker uses. */
export interface SafeParser<T> {
  safeParse(value: unknown): SafeParseOutcome<T>;
}

/** Parses `value` with a contract schema; `INVALID_REQUEST` with the issues when it does not fit. */
export function parseWith<T>(schema: SafeParser<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new PlatformError({
    code: 'INVALID_REQUEST',
    message: `The request body does not match the route: ${result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
      .join('; ')}`,
    details: {
      issues: result.error.issues
        .slice(0, 20)
        .map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    },
  });
}

const utf8 = new TextDecoder();

/**
 * Reads a request body as UTF-8 text of at most `maxBytes`: a declared `content-length` over it
 * is refused before a byte is read, and a body without one (chunked) is read only up to the
 * limit, then cancelled. Past the limit it throws `tooLarge(maxBytes)`, by default
 * `PAYLOAD_TOO_LARGE` (413) with `details.maxBytes`.
 */
export async function readBodyText(
  request: Request,
  maxBytes: number,
  tooLargeError: (maxBytes: number) => PlatformError = tooLarge,
): Promise<string> {
  try {
    return await readText(request, maxBytes);
  } catch (error) {
    if (error instanceof PlatformError && error.code === 'PAYLOAD_TOO_LARGE')
      throw tooLargeError(maxBytes);
    throw error;
  }
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (Number(request.headers.get('content-length') ?? '0') > maxBytes) throw tooLarge(maxBytes);
  // With a declared length (already checked against `maxBytes`), read the body whole: on
  // node-server this reads the socket directly instead of through a web stream adapter, which
  // was a large share of a small call's time. HTTP framing holds a body to its
  // `content-length`; the check after reading covers an in-process `Request` that lies.
  // `text()` decodes the read buffer in place (`arrayBuffer()` copies it first).
  if (request.headers.has('content-length')) {
    const text = await request.text();
    // UTF-8 takes at least one byte per UTF-16 unit and at most three.
    if (
      text.length > maxBytes ||
      (text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes)
    )
      throw tooLarge(maxBytes);
    return text;
  }
  return utf8.decode(await readBodyBytes(request, maxBytes));
}

/**
 * Reads a request body as bytes, at most `maxBytes` (a larger declared `content-length` is
 * refused before a byte is read; a chunked body is cancelled at the limit): `tooLarge(maxBytes)`
 * past it.
 */
export async function readBodyBytes(
  request: Request,
  maxBytes: number,
  tooLargeError: (maxBytes: number) => PlatformError = tooLarge,
): Promise<Uint8Array> {
  if (Number(request.headers.get('content-length') ?? '0') > maxBytes)
    throw tooLargeError(maxBytes);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function unsupported(type: string): PlatformError {
  return new PlatformError({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: `Send JSON with content-type application/json (got ${type ? JSON.stringify(type) : 'none'}).`,
  });
}

function tooLarge(maxBytes: number): PlatformError {
  return new PlatformError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body is larger than ${maxBytes} bytes.`,
    details: { maxBytes },
  });
}
