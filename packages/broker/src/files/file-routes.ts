import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { fileRoutes } from '@platform/schema/routes';
import type { Context, Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { Authenticate } from '../kernel/caller.ts';
import type { FileService } from './file-service.ts';

const NAME_MAX = 255;

function fileTooLarge(max: number): PlatformError {
  return new PlatformError({
    code: 'FILE_TOO_LARGE',
    message: `Files are limited to ${max} bytes.`,
    details: { max },
  });
}

const refOf = (c: Context<BrokerEnv>): string => c.req.param('ref') ?? '';

function optionalName(c: Context<BrokerEnv>): string | undefined {
  const name = c.req.query('name');
  return name === undefined ? undefined : requiredName(c);
}

function requiredName(c: Context<BrokerEnv>): string {
  const name = c.req.query('name');
  if (!name || name.length > NAME_MAX) {
    throw new PlatformError({
      code: 'INVALID_INPUT',
      message: `Give the file's name as ?name= (1 to ${NAME_MAX} characters).`,
      details: { field: 'name' },
    });
  }
  return name;
}

const optionalType = (c: Context<BrokerEnv>): string | undefined =>
  c.req.header('content-type')?.trim() || undefined;

function requiredType(c: Context<BrokerEnv>): string {
  const type = optionalType(c);
  if (type) return type;
  throw new PlatformError({
    code: 'INVALID_INPUT',
    message: "Send the file's type as the request's content-type.",
    details: { field: 'contentType' },
  });
}

/**
 * The request's body as it arrives, for the store to write while it is read: a declared length
 * over `max` is refused before anything is read, and the file service stops a longer body at
 * the first byte over it.
 */
function bodyStream(request: Request, max: number): AsyncIterable<Uint8Array> {
  if (Number(request.headers.get('content-length') ?? '0') > max) throw fileTooLarge(max);
  const body = request.body;
  // A Node stream: iterable as the body arrives, whatever the DOM typings say of web streams.
  return body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : (async function* () {})();
}

// RFC 6266: an ASCII fallback and the exact name in UTF-8.
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * Managed files over HTTP (`fileRoutes`), for an app access token (the owner, spec 2.2) and
 * sessions, with the rules of the `files` context member (`FileService`): writes need a user,
 * replace and remove the uploader. A cookie alone identifies only downloads and `info` (GET),
 * as for REST. Downloads are served as attachments, sandboxed and never sniffed, so an
 * uploaded HTML or SVG file cannot run as a page of the app.
 */
export function mountFileRoutes(
  app: Hono<BrokerEnv>,
  services: { files: FileService; authenticate: Authenticate },
): void {
  const { files, authenticate } = services;
  const max = limits.files.maxBytes;
  app.post(fileRoutes.upload.path, async (c) => {
    const caller = await authenticate(c.req.raw);
    const name = requiredName(c);
    const contentType = requiredType(c);
    const data = bodyStream(c.req.raw, max);
    return c.json({ file: await files.upload(caller, { data, name, contentType }) }, 201);
  });
  app.get(fileRoutes.info.path, async (c) => {
    const caller = await authenticate(c.req.raw);
    return c.json({ file: await files.info(caller, refOf(c)) });
  });
  app.get(fileRoutes.download.path, async (c) => {
    const caller = await authenticate(c.req.raw);
    const { file, body } = await files.open(caller, refOf(c));
    // Sent as it is read from the store, never held whole.
    return c.body(Readable.toWeb(body) as ReadableStream<Uint8Array>, 200, {
      'content-length': String(file.size),
      'content-type': file.contentType,
      'content-disposition': attachment(file.name),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'",
      'cache-control': 'private, no-store',
    });
  });
  app.put(fileRoutes.replace.path, async (c) => {
    const caller = await authenticate(c.req.raw);
    const name = optionalName(c);
    const contentType = optionalType(c);
    const data = bodyStream(c.req.raw, max);
    return c.json({
      file: await files.replace(caller, refOf(c), { data, name, contentType }),
    });
  });
  app.delete(fileRoutes.remove.path, async (c) => {
    const caller = await authenticate(c.req.raw);
    await files.remove(caller, refOf(c));
    return c.json({ ok: true });
  });
}
