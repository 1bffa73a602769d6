import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { PlatformError } from '@platform/errors';
import type { Plugin } from 'esbuild';
import type { Hono } from 'hono';
import { getMimeType } from 'hono/utils/mime';
import { buildThenIdle } from '../functions/esbuild-service.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { isReserved } from '../http/paths.ts';

/** The folder of an app whose files are its frontend (ours; the manifest has no field for it). */
export const FRONTEND_DIR = 'public';

const require = createRequire(import.meta.url);
const brokerDir = dirname(require.resolve('@platform/broker/package.json'));

// `@platform/browser` resolves from the app's own node_modules when it has one, else from the
// broker's, so a frontend needs no install (the same rule as `@platform/server` in Functions).
const sdkFallback = (appDir: string): Plugin => ({
  name: 'platform-browser-sdk',
  setup(b) {
    b.onResolve({ filter: /^@platform\/browser(\/|$)/ }, async (args) => {
      if (args.pluginData === 'fallback') return undefined;
      const own = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: appDir,
        pluginData: 'fallback',
      });
      if (own.errors.length === 0) return own;
      return b.resolve(args.path, {
        kind: args.kind,
        resolveDir: brokerDir,
        pluginData: 'fallback',
      });
    });
  },
});

/**
 * The URL path decoded one segment at a time; `undefined` when a segment does not decode or
 * decodes to a separator (`/`, `\`) or NUL, so an encoded separator never becomes a path step.
 */
function decodeSegments(pathname: string): string | undefined {
  const segments: string[] = [];
  for (const raw of pathname.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (/[/\\\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments.join('/');
}

/**
 * Serves an app's frontend from `<appDir>/public/` (GET and HEAD, after every platform and
 * Function route): `/` and folders serve their `index.html`; a path without a file extension
 * that names no file serves `/index.html` (client-side routing). A request for `/x.js` with no
 * `public/x.js` but a `public/x.ts` (or `.tsx`) gets that module bundled for the browser by
 * esbuild (cached until `invalidate()`), so a frontend written in TypeScript needs no build
 * step. Anything else falls through to `ROUTE_NOT_FOUND`, and so does every path under a
 * reserved prefix (`/_platform`, `/v1`, `/rest`, compared case-insensitively after collapsing
 * repeated `/`, so `//_platform/…` and `/V1/…` too) and every path with an encoded separator
 * (`%2F`, `%5C`) or NUL: a segment of the URL is one step in `public/`, never more.
 */
export class Frontend {
  readonly dir: string;
  readonly #appDir: string;
  readonly #bundles = new Map<string, Promise<Uint8Array>>();

  constructor(appDir: string) {
    this.#appDir = resolve(appDir);
    this.dir = join(this.#appDir, FRONTEND_DIR);
  }

  /** Forgets bundled modules (watch mode calls it when a frontend file changes). */
  invalidate(): void {
    this.#bundles.clear();
  }

  /** Mounts the GET/HEAD fallback route. */
  mount(app: Hono<BrokerEnv>): void {
    app.on(['GET', 'HEAD'], '*', async (c, next) => {
      const file = await this.#lookup(new URL(c.req.url).pathname);
      if (file === undefined) return next();
      const body = await this.#read(file);
      return new Response(c.req.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
        headers: {
          // hono's table of types (text ones with their charset); unknown files download.
          'content-type': getMimeType(file.path) ?? 'application/octet-stream',
          'content-length': String(body.byteLength),
          // Development: always revalidate, so an edit shows on the next reload.
          'cache-control': 'no-cache',
        },
      });
    });
  }

  async #lookup(pathname: string): Promise<{ path: string; bundle: boolean } | undefined> {
    const decoded = decodeSegments(pathname);
    // The edge check exempts reserved prefixes by the raw path; serving a file for one would
    // hand the app to whoever is exempt (and `%2F` would walk out of the prefix).
    if (decoded === undefined || isReserved(pathname) || isReserved(decoded)) return undefined;
    const path = resolve(this.dir, `.${decoded}`);
    // Never outside public/ (`..`, encoded or not).
    if (path !== this.dir && !path.startsWith(this.dir + sep)) return undefined;
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) return { path, bundle: false };
    if (info?.isDirectory()) return this.#file(join(path, 'index.html'));
    if (extname(path) === '.js') {
      for (const ext of ['.ts', '.tsx']) {
        const source = path.slice(0, -3) + ext;
        if ((await stat(source).catch(() => undefined))?.isFile()) return { path, bundle: true };
      }
    }
    if (extname(path) === '') return this.#file(join(this.dir, 'index.html'));
    return undefined;
  }

  async #file(path: string): Promise<{ path: string; bundle: boolean } | undefined> {
    return (await stat(path).catch(() => undefined))?.isFile()
      ? { path, bundle: false }
      : undefined;
  }

  #read(file: { path: string; bundle: boolean }): Promise<Uint8Array> {
    if (!file.bundle) return readFile(file.path);
    let bundle = this.#bundles.get(file.path);
    if (!bundle) {
      bundle = this.#bundle(file.path);
      this.#bundles.set(file.path, bundle);
      bundle.catch(() => this.#bundles.delete(file.path));
    }
    return bundle;
  }

  async #bundle(jsPath: string): Promise<Uint8Array> {
    const base = jsPath.slice(0, -3);
    const entry = (await stat(`${base}.ts`).catch(() => undefined)) ? `${base}.ts` : `${base}.tsx`;
    try {
      const result = await buildThenIdle({
        entryPoints: [entry],
        absWorkingDir: this.#appDir,
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        conditions: ['@platform/source'],
        sourcemap: 'inline',
        write: false,
        logLevel: 'silent',
        plugins: [sdkFallback(this.#appDir)],
      });
      return result.outputFiles[0]!.contents;
    } catch (error) {
      const messages =
        (
          error as {
            errors?: {
              text: string;
              location?: { file: string; line: number; column: number } | null;
            }[];
          }
        ).errors ?? [];
      const text = messages
        .map((m) =>
          m.location
            ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ${m.text}`
            : m.text,
        )
        .join('\n');
      throw new PlatformError({
        code: 'INTERNAL',
        message: `The frontend module ${relative(this.#appDir, entry)} could not be bundled:\n${text}`,
      });
    }
  }
}
