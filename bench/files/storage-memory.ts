// Memory of streaming a large file through each file store: the node's resident memory while
// 1 GiB (FILES_BENCH_MIB) is uploaded to and downloaded from S3-compatible object storage
// (s3rver in its own process on loopback, so that its memory is not counted) and the local
// folder, beside a same-run baseline: the same bytes generated and discarded with no store.
// The goal is an upload that raises the resident memory by less than 64 MiB. The store is
// measured directly, since managed files are limited to `limits.files.maxBytes` (50 MiB).
//
// As a suite of bench/run.ts: `files: () => import('./files/storage-memory.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/files/storage-memory.ts`.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileStore } from '../../packages/broker/src/files/file-store.ts';
import { FolderFileStore } from '../../packages/broker/src/files/folder-store.ts';
import { S3FileStore } from '../../packages/broker/src/files/s3-store.ts';
import { type Row, row } from '../report.ts';

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.FILES_BENCH_MIB ?? 1024);
const GOAL_MIB = 64;

/** SIZE_MIB of bytes in 1 MiB chunks, made as they are read. */
async function* bytes(): AsyncIterable<Uint8Array> {
  for (let i = 0; i < SIZE_MIB; i++) yield new Uint8Array(MIB).fill(i & 0xff);
}

/** The highest resident memory above the start while `work` runs, in MiB, and its seconds. */
async function peakRss(work: () => Promise<void>): Promise<{ mib: number; seconds: number }> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const began = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return { mib: (peak - start) / MIB, seconds: (performance.now() - began) / 1000 };
}

async function drain(source: AsyncIterable<Uint8Array>): Promise<number> {
  let size = 0;
  for await (const chunk of source) size += chunk.byteLength;
  return size;
}

/** s3rver in a child process; resolves to its port. */
async function startS3rver(dir: string): Promise<{ port: number; child: ChildProcess }> {
  const script = `import S3rver from 's3rver';
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'bench' }] });
const { port } = await server.run();
console.log('port=' + port);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: join(import.meta.dirname, '../../packages/broker'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /port=(\d+)/.exec(String(chunk));
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error('s3rver did not start')));
  });
  return { port, child };
}

async function measure(name: string, store: FileStore, baseline: number): Promise<Row[]> {
  const up = await peakRss(() => store.put('file_bench', 1, bytes()));
  let size = 0;
  const down = await peakRss(async () => {
    const body = await store.get('file_bench', 1);
    size = body ? await drain(body) : 0;
  });
  if (size !== SIZE_MIB * MIB) throw new Error(`${name}: read back ${size} bytes`);
  await store.removeFile('file_bench');
  const goal = (mib: number) => ({ text: `< ${GOAL_MIB} MiB`, met: mib < GOAL_MIB });
  const mib = (value: number) => `${value.toFixed(1)} MiB`;
  return [
    row(
      `${name}: upload ${SIZE_MIB} MiB, resident memory added (${up.seconds.toFixed(1)} s)`,
      mib(up.mib),
      mib(baseline),
      up.mib / baseline,
      goal(up.mib),
    ),
    row(
      `${name}: download ${SIZE_MIB} MiB, resident memory added (${down.seconds.toFixed(1)} s)`,
      mib(down.mib),
      mib(baseline),
      down.mib / baseline,
      goal(down.mib),
    ),
  ];
}

export async function run(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'files-bench-'));
  const s3 = await startS3rver(join(dir, 's3rver'));
  const stores = {
    s3: new S3FileStore({
      endpoint: `http://127.0.0.1:${s3.port}`,
      bucket: 'bench',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    }),
    folder: new FolderFileStore(join(dir, 'folder')),
  };
  try {
    // Warm both up (module loading, connection pools), so neither counts them.
    for (const store of Object.values(stores)) {
      await store.put('file_warm', 1, [new Uint8Array(MIB)]);
      await store.removeFile('file_warm');
    }
    const baseline = (await peakRss(async () => void (await drain(bytes())))).mib || 0.1;
    return [
      ...(await measure('S3 object storage (s3rver)', stores.s3, baseline)),
      ...(await measure('local folder', stores.folder, baseline)),
    ];
  } finally {
    stores.s3.close();
    s3.child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { print } = await import('../report.ts');
  print(await run());
}
