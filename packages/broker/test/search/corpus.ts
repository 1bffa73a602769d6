import type { SearchDeclaration } from '@platform/schema/manifest';
import type { Database } from '../../src/db/database.ts';

/** The two users of the corpus; RLS lets each see only their own rows. */
export const users = {
  ada: '00000000-0000-4000-8000-00000000000a',
  bob: '00000000-0000-4000-8000-00000000000b',
} as const;

/** Vocabulary, most frequent first, so common words match more than 100 rows. */
export const vocabulary = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
] as const;
export const categories = ['red', 'green', 'blue'] as const;
export const dimensions = 4;

/** One corpus row. Embeddings have small integer components, so float32 arithmetic is exact. */
export interface Doc {
  readonly id: number;
  readonly owner: string;
  readonly title: string;
  readonly body: string | null;
  readonly category: string | null;
  readonly flag: boolean | null;
  readonly rating: number | null;
  readonly embedding: readonly number[] | null;
}

/** The table: RLS on, each user sees their rows; the embedding column is added by the broker. */
export const corpusMigration = `
create table docs (
  id integer primary key,
  owner uuid not null,
  title text not null,
  body text,
  category text,
  flag boolean,
  rating integer
);
alter table docs enable row level security;
create policy docs_owner on docs for select to authenticated using (owner = auth.uid());
create policy docs_system on docs for select to platform_system using (auth.is_system());
`;

/** The declaration searched in the tests. */
export const docsSearch: SearchDeclaration = {
  name: 'docs',
  table: 'docs',
  select: ['id', 'title', 'category'],
  fullText: { columns: ['title', 'body'], language: 'simple' },
  vector: { column: 'embedding', dimensions, model: 'test-embed@1' },
  filters: ['category', 'flag', 'rating'],
};

/** A small deterministic PRNG (mulberry32), so a corpus is a function of its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` rows from `seed`: skewed word frequencies, nulls, zero and repeated embeddings. */
export function generateCorpus(seed: number, count: number): Doc[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // Squaring skews towards the first words: "alpha" is in most rows.
  const word = () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!;
  const words = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, word);
  const docs: Doc[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    docs.push({
      id: i + 1,
      owner: random() < 0.5 ? users.ada : users.bob,
      // Mixed case: the simple configuration lowercases.
      title: words(1, 3)
        .map((w) => (random() < 0.2 ? w.toUpperCase() : w))
        .join(' '),
      body: random() < 0.15 ? null : `${words(0, 6).join(', ')}.`,
      category: random() < 0.2 ? null : pick(categories),
      flag: random() < 0.2 ? null : random() < 0.5,
      rating: random() < 0.2 ? null : Math.floor(random() * 3),
      embedding:
        roll < 0.1
          ? null
          : roll < 0.13
            ? Array(dimensions).fill(0)
            : Array.from({ length: dimensions }, () => Math.floor(random() * 5) - 2),
    });
  }
  return docs;
}

/**
 * Replaces the rows of `docs` with `corpus` (as the database owner, so RLS does not apply), on
 * either kind of embedding column (pgvector's `vector(n)`, or `real[]` without pgvector).
 */
export async function loadCorpus(db: Database, corpus: readonly Doc[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('delete from docs');
    for (let start = 0; start < corpus.length; start += 200) {
      const chunk = corpus.slice(start, start + 200);
      const values: unknown[] = [];
      const tuples = chunk.map((doc) => {
        const row = [
          doc.id,
          doc.owner,
          doc.title,
          doc.body,
          doc.category,
          doc.flag,
          doc.rating,
          doc.embedding ? `{${doc.embedding.join(',')}}` : null,
        ];
        const marks = row.map((value) => {
          values.push(value);
          return `$${values.length}`;
        });
        // real[] fits both columns: pgvector's vector(n) takes it by its assignment cast.
        return `(${marks.join(', ')}::real[])`;
      });
      await tx.query(
        `insert into docs (id, owner, title, body, category, flag, rating, embedding) values ${tuples.join(', ')}`,
        values,
      );
    }
  });
}
