import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { appendFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/** A hash of the file at `path`, read as a stream: a bundle's map is megabytes. */
async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex').slice(0, 12);
}

/**
 * Moves a bundle and its source map, as esbuild wrote them under other names beside `outFile`,
 * into place, the map first, and links the bundle to the map (`//# sourceMappingURL=`).
 *
 * Deno reads a linked map only when it formats a stack trace, so a running Function does not hold
 * its map in memory (an inline map cost each Function process about 10 MB). The map's name
 * carries a hash of its content, so a process still running the previous bundle while the new one
 * starts keeps reading its own map: the previous map stays, older ones are removed. Each file is
 * replaced in one step (a rename), as a running process may be reading the old one; nothing of
 * either is read into memory here.
 */
export async function placeBundleFiles(
  outFile: string,
  written: { readonly code: string; readonly map: string },
): Promise<void> {
  try {
    const name = `${basename(outFile)}.${await fileHash(written.map)}.map`;
    await rename(written.map, join(dirname(outFile), name));
    await appendFile(written.code, `//# sourceMappingURL=${name}\n`);
    await rename(written.code, outFile);
    await removeOlderMaps(outFile, name);
  } finally {
    await Promise.all([rm(written.code, { force: true }), rm(written.map, { force: true })]);
  }
}

async function removeOlderMaps(outFile: string, current: string): Promise<void> {
  const dir = dirname(outFile);
  const prefix = `${basename(outFile)}.`;
  const others = (await readdir(dir)).filter(
    (file) =>
      file !== current &&
      file.startsWith(prefix) &&
      /^[0-9a-f]{12}\.map$/.test(file.slice(prefix.length)),
  );
  const dated = await Promise.all(
    others.map(async (file) => ({
      file,
      mtimeMs: (await stat(join(dir, file)).catch(() => undefined))?.mtimeMs ?? 0,
    })),
  );
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs);
  await Promise.all(dated.slice(1).map(({ file }) => rm(join(dir, file), { force: true })));
}

/** What a build writes before its files move into place: `.<name>.<pid>-<build>.js[.map]`. */
const WRITTEN = /^\..+\.(\d+)-\d+\.js(\.map)?$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes from `dir` the files a build wrote and never moved into place because its process
 * ended first (a broker killed while bundling). Files of a process still running are its own
 * build's, still to be moved, and stay.
 */
export async function removeAbandonedFiles(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => {
        const pid = Number(WRITTEN.exec(name)?.[1] ?? Number.NaN);
        return Number.isInteger(pid) && pid !== process.pid && !alive(pid);
      })
      .map((name) => rm(join(dir, name), { force: true })),
  );
}
