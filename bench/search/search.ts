// Search latency through the broker's SearchService (validation, runAs with RLS, one statement,
// hit mapping and size checks) against the floor: the same SQL text and parameters sent
// directly to the same database as its owner, interleaved in the same run. fullText, vector
// (384 dimensions) and hybrid over 10,000 rows, on PGlite and, when installed, on a throwaway
// PostgreSQL (PLATFORM_TEST_POSTGRES=cluster: a private cluster as `platform dev` runs). Without
// pgvector there the embeddings are real[] and the distances SQL's: the last rows give that
// fallback against PGlite's pgvector on the same data, same run.
//
// As a suite of bench/run.ts: `search: () => import('./search/search.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/search/search.ts`.
// The default, 10,000 rows, takes about a minute. SEARCH_BENCH_ROWS=10000,100000 adds the larger
// table (exact vector ranking and full text under RLS are linear in rows): about 6.5 minutes on
// 2 cores, since every mode runs at least 25 rounds. Figures: docs/search.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SearchDeclaration } from '@platform/schema/manifest';
import { platformSchema } from '../../packages/broker/src/app/platform-schema.ts';
import type { Database } from '../../packages/broker/src/db/database.ts';
import { openDatabase } from '../../packages/broker/src/db/open-database.ts';
import { runAs } from '../../packages/broker/src/db/run-as.ts';
import { userCaller } from '../../packages/broker/src/kernel/caller.ts';
import { SearchService } from '../../packages/broker/src/search/search-service.ts';
import { startPostgres } from '../../packages/broker/test/helpers/postgres-server.ts';
import { type Row, row } from '../report.ts';

const OWNER = '00000000-0000-4000-8000-0000000000aa';
const DIMENSIONS = 384;
const MODEL = 'bench-embed@1';

const declaration = (vector: boolean): SearchDeclaration => ({
  name: 'items',
  table: 'items',
  select: ['id', 'title'],
  fullText: { columns: ['title', 'body'], language: 'english' },
  ...(vector ? { vector: { column: 'embedding', dimensions: DIMENSIONS, model: MODEL } } : {}),
  filters: ['category'],
});

const migration = `
create table items (id integer primary key, owner uuid not null, title text not null,
  body text, category text);
alter table items enable row level security;
create policy items_owner on items for select to authenticated using (owner = auth.uid());
`;

// Words w0..w1999 with a skewed frequency, 12 per body and 4 per title, generated in SQL.
const words = (n: number) =>
  `array_to_string(array(select 'w' || floor(power(random(), 3) * 2000)::int from generate_series(1, ${n} + 0 * i)), ' ')`;

async function load(db: Database, rows: number, vector: boolean): Promise<void> {
  await db.query(
    `insert into items (id, owner, title, body, category)
     select i, $1, ${words(4)}, ${words(12)}, (array['a','b','c'])[1 + i % 3]
       from generate_series(1, ${rows}) as i`,
    [OWNER],
  );
  if (vector) {
    // real[] fits both kinds of column: vector(n) takes it by pgvector's assignment cast.
    await db.query(`update items set embedding = (select array_agg(random() - 0.5)
      from generate_series(1, ${DIMENSIONS} + 0 * id))::real[]`);
  }
  await db.query('analyze items');
}

function randomVector(): number[] {
  return Array.from({ length: DIMENSIONS }, () => Math.random() - 0.5);
}

function randomOptions(mode: 'fullText' | 'vector' | 'hybrid'): Record<string, unknown> {
  const word = () => `w${Math.floor(Math.random() ** 3 * 60)}`;
  const query = `${word()} or ${word()}`;
  if (mode === 'fullText') return { mode, query, limit: 10 };
  if (mode === 'vector') return { mode, vector: randomVector(), model: MODEL, limit: 10 };
  return { mode, query, vector: randomVector(), model: MODEL, limit: 10 };
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

interface Timing {
  readonly p50: number;
  readonly p99: number;
}

async function measure(
  db: Database,
  search: SearchService,
  mode: 'fullText' | 'vector' | 'hybrid',
) {
  const caller = userCaller(OWNER);
  const ours: number[] = [];
  const floor: number[] = [];
  const floorRls: number[] = [];
  const budget = performance.now() + 8_000;
  for (let i = 0; i < 300 && (i < 25 || performance.now() < budget); i++) {
    const options = randomOptions(mode);
    const statement = await search.statementFor('items', options);
    const runs = [
      async () => {
        const t = performance.now();
        await search.search(caller, 'items', options);
        if (i >= 3) ours.push(performance.now() - t);
      },
      async () => {
        const t = performance.now();
        await db.query(statement.text, statement.values);
        if (i >= 3) floor.push(performance.now() - t);
      },
      async () => {
        const t = performance.now();
        await runAs(db, caller, (tx) => tx.query(statement.text, statement.values));
        if (i >= 3) floorRls.push(performance.now() - t);
      },
    ];
    // Rotate which runs first so drift and caching favour none.
    for (let r = 0; r < i % 3; r++) runs.push(runs.shift()!);
    for (const step of runs) await step();
  }
  const stats = (values: number[]): Timing => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  return {
    ours: stats(ours),
    floor: stats(floor),
    floorRls: stats(floorRls),
    samples: ours.length,
  };
}

/** What one suite measured: its rows, and the broker's p50 of each mode for the comparison. */
interface Suite {
  readonly rows: Row[];
  readonly p50: Partial<Record<'fullText' | 'vector' | 'hybrid', number>>;
  readonly storage: string;
}

async function suite(kind: 'pglite' | 'postgres', rows: number, url?: string): Promise<Suite> {
  const dir = await mkdtemp(join(tmpdir(), 'search-bench-'));
  const { db } = await openDatabase({
    appDir: dir,
    databaseUrl: url ?? '',
    inMemory: true,
    snapshotPath: join(dir, 'snapshot.tar'),
    platformSchema,
  });
  try {
    // A PostgreSQL cluster serves every size in turn: start from an empty table each time.
    await db.exec('drop table if exists items');
    await db.exec(migration);
    // Vector search works on every server: pgvector, else real[] embeddings.
    const search = new SearchService(db, [declaration(true)]);
    const [prepared] = await search.prepare();
    if (prepared?.problem) throw new Error(prepared.problem);
    const { rows: types } = await db.query<{ type: string }>(
      `select format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = 'items'::regclass and attname = 'embedding'`,
    );
    const storage = types[0]?.type ?? 'none';
    const started = performance.now();
    await load(db, rows, true);
    console.log(
      `search ${kind} ${rows} rows loaded in ${Math.round(performance.now() - started)} ms`,
    );
    const out: Row[] = [];
    const p50: Suite['p50'] = {};
    for (const mode of ['fullText', 'vector', 'hybrid'] as const) {
      const { ours, floor, floorRls, samples } = await measure(db, search, mode);
      p50[mode] = ours.p50;
      const name = `search ${kind} ${rows.toLocaleString('en-US')} rows ${mode} (n=${samples})`;
      const figure = (t: Timing) => `p50 ${ms(t.p50)} p99 ${ms(t.p99)}`;
      // Floor 1: the SQL as the owner (no RLS). Floor 2: the SQL as the caller, RLS applied.
      // The goals of the embedded default (PGlite, 10,000 rows): full text under RLS within
      // 1.3x the owner's SQL and under 25 ms, hybrid under 30 ms.
      const goal =
        kind !== 'pglite' || rows !== 10_000 || mode === 'vector'
          ? undefined
          : mode === 'fullText'
            ? {
                text: 'p50 <= 1.3x owner and < 25 ms',
                met: ours.p50 <= 1.3 * floor.p50 && ours.p50 < 25,
              }
            : { text: 'p50 < 30 ms', met: ours.p50 < 30 };
      out.push(
        row(`${name} vs owner SQL`, figure(ours), figure(floor), ours.p50 / floor.p50, goal),
      );
      out.push(
        row(`${name} vs SQL under RLS`, figure(ours), figure(floorRls), ours.p50 / floorRls.p50),
      );
    }
    return { rows: out, p50, storage };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the search benchmarks and returns report rows (ratio = ours p50 ÷ floor p50). */
export async function run(): Promise<Row[]> {
  const sizes = (process.env.SEARCH_BENCH_ROWS ?? '10000').split(',').map(Number);
  const rows: Row[] = [];
  const embedded: Suite[] = [];
  const server: Suite[] = [];
  for (const size of sizes) embedded.push(await suite('pglite', size));
  const cluster = await startPostgres();
  try {
    for (const size of sizes) server.push(await suite('postgres', size, cluster.url));
  } finally {
    await cluster.stop();
  }
  for (const one of [...embedded, ...server]) rows.push(...one.rows);
  // The same data and requests on both engines: PostgreSQL's p50 against PGlite's (pgvector).
  for (const [i, size] of sizes.entries()) {
    const [ours, base] = [server[i]!, embedded[i]!];
    for (const mode of ['fullText', 'vector', 'hybrid'] as const) {
      rows.push(
        row(
          `search ${size.toLocaleString('en-US')} rows ${mode}: PostgreSQL (${ours.storage}) vs PGlite (${base.storage}), broker p50`,
          ms(ours.p50[mode]!),
          ms(base.p50[mode]!),
          ours.p50[mode]! / base.p50[mode]!,
        ),
      );
    }
  }
  return rows;
}

if (process.argv[1]?.endsWith('search.ts')) {
  const { print } = await import('../report.ts');
  print(await run());
}
