import { createHash } from 'node:crypto';
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The name of a bundle's source map: the bundle's own name and a hash of the map. */
function mapName(outFile: string, map: Uint8Array): string {
  const hash = createHash('sha256').update(map).digest('hex').slice(0, 12);
  return `${basename(outFile)}.${hash}.map`;
}

// A running process may be reading the old file: each is replaced in one step.
async function replace(path: string, contents: Uint8Array | string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, contents);
  await rename(temp, path);
}

/**
 * Writes a bundle and its source map beside it, the map first, and links the bundle to the map
 * (`//# sourceMappingURL=`).
 *
 * Deno reads a linked map only when it formats a stack trace, so a running Function does not hold
 * its map in memory (an inline map cost each Function process about 10 MB). The map's name
 * carries a hash of its content, so a process still running the previous bundle while the new one
 * starts keeps reading its own map: the previous map stays, older ones are removed.
 */
export async function writeBundleFiles(
  outFile: string,
  code: Uint8Array,
  map: Uint8Array,
): Promise<void> {
  const name = mapName(outFile, map);
  const dir = dirname(outFile);
  await replace(join(dir, name), map);
  await replace(
    outFile,
    Buffer.concat([code, Buffer.from(`//# sourceMappingURL=${name}\n`, 'utf8')]),
  );
  await removeOlderMaps(outFile, name);
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
