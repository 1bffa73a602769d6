import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { create, Parser, type ReadEntry } from 'tar';

/** The file inside a deployment archive that lists every other file with its SHA-256. */
export const DEPLOYMENT_INDEX = 'deployment.json';

/** What {@link DEPLOYMENT_INDEX} holds. */
export interface DeploymentIndex {
  /** The archive format; only 1 exists. */
  readonly format: 1;
  /** Every file of the archive but the index itself, by path, with its SHA-256 in hex. */
  readonly files: Readonly<Record<string, string>>;
}

/** A deployment archive read and checked: its files by path. */
export interface DeploymentContents {
  /** The SHA-256 of the index: names the revision's content (same files, same digest). */
  readonly digest: string;
  readonly index: DeploymentIndex;
  /** Every file the index lists, by path (`platform.yaml`, `functions/x.js`, ...). */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

const sha256Hex = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex');

const invalid = (message: string, details?: JsonObject) =>
  new PlatformError({
    code: 'INVALID_INPUT',
    message: `The deployment archive is not valid: ${message}`,
    ...(details ? { details } : {}),
  });

// What an archive may hold: the manifest, one bundle (and its source map) per Function, the
// migrations, and the frontend. Nothing else reaches the service's disk.
const ALLOWED = [
  /^platform\.yaml$/,
  /^functions\/[A-Za-z][A-Za-z0-9_-]*\.js(\.map)?$/,
  /^migrations\/[^/]+\.sql$/,
  /^public\/.+$/,
];

/** Whether `path` is a plain relative path of the archive's allowed places, no `..` or `.`. */
export function isAllowedPath(path: string): boolean {
  if (path.length > 512 || path.includes('\\') || path.includes('\0')) return false;
  if (posix.normalize(path) !== path || path.startsWith('/')) return false;
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return false;
  return ALLOWED.some((pattern) => pattern.test(path));
}

/**
 * Packs `files` (path → bytes, the paths {@link isAllowedPath} accepts) into a gzip tar with
 * {@link DEPLOYMENT_INDEX} first, as `platform deploy` uploads it. The files are written to
 * `stagingDir` to be packed from there.
 */
export async function packDeployment(
  files: ReadonlyMap<string, Uint8Array>,
  stagingDir: string,
): Promise<Buffer> {
  const listed: Record<string, string> = {};
  for (const [path, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!isAllowedPath(path)) throw invalid(`"${path}" may not be deployed.`, { path });
    listed[path] = sha256Hex(bytes);
    await mkdir(dirname(join(stagingDir, path)), { recursive: true });
    await writeFile(join(stagingDir, path), bytes);
  }
  const index: DeploymentIndex = { format: 1, files: listed };
  await writeFile(join(stagingDir, DEPLOYMENT_INDEX), JSON.stringify(index, null, 2));
  const chunks: Buffer[] = [];
  const stream = create({ gzip: true, cwd: stagingDir, portable: true }, [
    DEPLOYMENT_INDEX,
    ...Object.keys(listed),
  ]);
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Reads an uploaded archive in memory and checks it: the size limits of
 * `limits.deployment`, regular files only, each at an allowed path and once, each listed in
 * the index with its SHA-256 and every listed file present. Throws `PAYLOAD_TOO_LARGE` or
 * `INVALID_INPUT` naming the problem; nothing is written anywhere.
 */
export async function readDeployment(archive: Uint8Array): Promise<DeploymentContents> {
  const { archiveMaxBytes, unpackedMaxBytes, maxFiles } = limits.deployment;
  if (archive.byteLength > archiveMaxBytes) throw tooLarge('archive', archiveMaxBytes);
  const files = new Map<string, Uint8Array>();
  let indexText: string | undefined;
  let total = 0;
  let problem: Error | undefined;
  const parser = new Parser({
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      const path = entry.path;
      if (problem === undefined && entry.type !== 'File') {
        problem = invalid(`"${path}" is not a regular file.`, { path });
      } else if (problem === undefined && files.size >= maxFiles) {
        problem = invalid(`more than ${maxFiles} files.`);
      } else if (
        problem === undefined &&
        (files.has(path) || (path !== DEPLOYMENT_INDEX && !isAllowedPath(path)))
      ) {
        problem = invalid(`"${path}" is not a place a deployment may write (or comes twice).`, {
          path,
        });
      }
      entry.on('data', (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > unpackedMaxBytes) problem ??= tooLarge('unpacked files', unpackedMaxBytes);
        if (problem === undefined) chunks.push(chunk);
      });
      entry.on('end', () => {
        if (problem !== undefined) return;
        const bytes = Buffer.concat(chunks);
        if (path === DEPLOYMENT_INDEX) indexText = bytes.toString('utf8');
        else files.set(path, bytes);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('error', (error: Error) => reject(invalid(`not a gzip tar (${error.message}).`)));
    parser.on('warn', (_code: string, message: string) => {
      problem ??= invalid(`not a readable gzip tar (${message}).`);
    });
    parser.on('end', () => resolve());
    parser.end(Buffer.from(archive));
  });
  if (problem !== undefined) throw problem;
  if (indexText === undefined) throw invalid(`it has no ${DEPLOYMENT_INDEX}.`);
  const index = parseIndex(indexText);
  for (const [path, hash] of Object.entries(index.files)) {
    const bytes = files.get(path);
    if (bytes === undefined)
      throw invalid(`${DEPLOYMENT_INDEX} lists "${path}", which is missing.`);
    if (sha256Hex(bytes) !== hash) {
      throw invalid(`"${path}" does not match its SHA-256 in ${DEPLOYMENT_INDEX}.`, { path });
    }
  }
  for (const path of files.keys()) {
    if (!(path in index.files)) throw invalid(`"${path}" is not listed in ${DEPLOYMENT_INDEX}.`);
  }
  return { digest: sha256Hex(indexText), index, files };
}

function parseIndex(text: string): DeploymentIndex {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`${DEPLOYMENT_INDEX} is not JSON.`);
  }
  const candidate = value as { format?: unknown; files?: unknown };
  if (
    candidate === null ||
    typeof candidate !== 'object' ||
    candidate.format !== 1 ||
    candidate.files === null ||
    typeof candidate.files !== 'object' ||
    Object.entries(candidate.files).some(
      ([path, hash]) =>
        !isAllowedPath(path) || typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash),
    )
  ) {
    throw invalid(`${DEPLOYMENT_INDEX} is not { format: 1, files: { <path>: <sha256> } }.`);
  }
  return candidate as DeploymentIndex;
}

function tooLarge(what: string, max: number): PlatformError {
  return new PlatformError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `The deployment's ${what} exceed ${max} bytes (limits.deployment); leave large files out of public/ and migrations/.`,
    details: { limit: max },
  });
}

/** Writes a checked deployment's files under `dir` (made when missing), as the revision's folder. */
export async function writeDeployment(contents: DeploymentContents, dir: string): Promise<void> {
  for (const [path, bytes] of contents.files) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await writeFile(target, bytes, { mode: 0o600 });
  }
}
