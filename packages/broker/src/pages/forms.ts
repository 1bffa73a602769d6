import { PlatformError } from '@platform/errors';
import type { Context } from 'hono';
import { readBodyText } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';

const MAX_FORM_BYTES = 16 * 1024;

/**
 * The fields of a URL-encoded form post, as strings: `UNSUPPORTED_MEDIA_TYPE` (415) for another
 * content type, `PAYLOAD_TOO_LARGE` (413) past 16 KiB, refused by `content-length` before the
 * body is read and while reading one without it; `INVALID_REQUEST` (400) for a NUL character.
 */
export async function readForm(c: Context<BrokerEnv>): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    throw new PlatformError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Forms are posted as application/x-www-form-urlencoded.',
    });
  }
  // Checked against content-length before reading and while reading a chunked body, so a huge
  // post is refused after 16 KiB, not buffered whole (no sign-in is needed to send one).
  const text = await readBodyText(
    c.req.raw,
    MAX_FORM_BYTES,
    () =>
      new PlatformError({
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The form is larger than 16 KiB.',
        details: { maxBytes: MAX_FORM_BYTES },
      }),
  );
  const fields = Object.fromEntries(new URLSearchParams(text));
  for (const [name, value] of Object.entries(fields)) {
    // PostgreSQL text cannot hold NUL; refused here rather than failing in the database.
    if (name.includes('\u0000') || value.includes('\u0000')) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: `The form field ${JSON.stringify(name.replaceAll('\u0000', '\\0'))} contains a NUL character, which is not accepted.`,
      });
    }
  }
  return fields;
}

/** Whether the request is a page navigation (it wants HTML rather than JSON). */
export function wantsHtml(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const mode = request.headers.get('sec-fetch-mode');
  if (mode !== null) return mode === 'navigate';
  return (request.headers.get('accept') ?? '').includes('text/html');
}

/** A 303 redirect (after a form post) with optional cookies. */
export function seeOther(
  location: string,
  cookies: ReadonlyArray<string | undefined> = [],
): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const cookie of cookies) if (cookie !== undefined) headers.append('set-cookie', cookie);
  return new Response(null, { status: 303, headers });
}
