// Run by `npm run build` after tsup: prepares, once on the build machine, the embedded databases
// a first `platform dev` would otherwise prepare on every new machine (initdb and every schema
// step, 5-15 s): the app database's and the central store's prepared snapshots, opened exactly as
// `platform dev` opens them. They go to dist/snapshots/ gzipped (26 MB of tar each, about 3 MB
// packed), with snapshots.json naming each tar's SHA-256, which the broker checks before it copies
// one into the machine cache (src/db/schema-snapshot.ts).
//
// `node --conditions=@platform/source scripts/ship-snapshots.ts [outDir]`
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { openCentralStore } from '../src/app/open-central.ts';
import { platformSchema } from '../src/app/platform-schema.ts';
import { defaultSnapshotPath, openDatabase } from '../src/db/open-database.ts';
import { SHIPPED_SNAPSHOTS_LIST } from '../src/db/schema-snapshot.ts';

const out = process.argv[2] ?? fileURLToPath(new URL('../dist/snapshots/', import.meta.url));
const started = performance.now();
const work = await mkdtemp(join(tmpdir(), 'ship-snapshots-'));
try {
  // The cache's own file name: the prepared snapshots are named after it and the schema's hash.
  const base = join(work, basename(defaultSnapshotPath()));
  const app = await openDatabase({
    appDir: work,
    inMemory: true,
    snapshotPath: base,
    platformSchema,
  });
  await app.db.close();
  const central = await openCentralStore({ dir: work, inMemory: true, snapshotPath: base });
  await central.close();
  const prepared = (await readdir(work)).filter((name) => name.includes('-schema-')).sort();
  if (prepared.length !== 2) throw new Error(`expected 2 prepared snapshots, found ${prepared}`);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const snapshots: Record<string, { sha256: string }> = {};
  for (const name of prepared) {
    const tar = await readFile(join(work, name));
    snapshots[name] = { sha256: createHash('sha256').update(tar).digest('hex') };
    await writeFile(join(out, `${name}.gz`), gzipSync(tar, { level: 9 }));
  }
  await writeFile(join(out, SHIPPED_SNAPSHOTS_LIST), `${JSON.stringify({ snapshots }, null, 2)}\n`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`ship-snapshots: ${prepared.length} prepared snapshots in ${out} (${seconds} s)`);
} finally {
  await rm(work, { recursive: true, force: true });
}
