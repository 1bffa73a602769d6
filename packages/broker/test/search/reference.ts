/**
 * The ranking of spec 2.5 in plain TypeScript, written from the spec and not from the broker's
 * SQL, for the property tests. It covers the query language the tests generate: words joined by
 * `or` (and queries whose parse is empty), with the `simple` configuration. For those,
 * `ts_rank_cd` (cover density, default weights, no normalisation) is 0.1 for every position of
 * the document that holds a query word: each such position is its own cover.
 */
import { type Doc, docsSearch } from './corpus.ts';

/** What the tests ask for (already valid). */
export interface ReferenceRequest {
  readonly mode: 'fullText' | 'vector' | 'hybrid';
  readonly query?: string;
  readonly vector?: readonly number[];
  readonly where?: Readonly<Record<string, string | number | boolean | null>>;
  readonly limit?: number;
}

/** A hit as spec 2.5 defines it. */
export interface ReferenceHit {
  readonly record: Record<string, unknown>;
  readonly fullTextScore: number | null;
  readonly fullTextRank: number | null;
  readonly vectorDistance: number | null;
  readonly vectorSimilarity: number | null;
  readonly vectorRank: number | null;
  readonly fusionScore: number | null;
}

const CANDIDATES = 100;
const K = 60;
// ts_rank_cd's default weight of an unlabelled position is float4 0.1; a one-position cover
// contributes 1 / (1 / 0.1f), then the sum is returned as float4.
const COVER = 1 / (1 / Math.fround(0.1));

/** Lexemes of the `simple` configuration: lowercased words of letters and digits. */
export function lexemes(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** The words of an `a or b or c` query; empty when nothing parses to a lexeme. */
export function queryWords(query: string): Set<string> {
  return new Set(lexemes(query).filter((word) => word !== 'or'));
}

/** Exact cosine distance as pgvector computes it (`1 - dot / sqrt(|a|^2 |b|^2)`, clamped). */
export function cosineDistance(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  const similarity = Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
  return 1 - similarity;
}

interface Candidate {
  readonly doc: Doc;
  readonly value: number;
  readonly rank: number;
}

function rankBy(
  docs: readonly Doc[],
  value: (doc: Doc) => number | undefined,
  better: (a: number, b: number) => number,
): Map<number, Candidate> {
  const scored = docs.flatMap((doc) => {
    const v = value(doc);
    return v === undefined ? [] : [{ doc, value: v }];
  });
  scored.sort((a, b) => better(a.value, b.value) || a.doc.id - b.doc.id);
  return new Map(
    scored.slice(0, CANDIDATES).map((c, i) => [c.doc.id, { ...c, rank: i + 1 }] as const),
  );
}

/** The hits `userId` must get for `request` over `corpus`. */
export function referenceSearch(
  corpus: readonly Doc[],
  userId: string,
  request: ReferenceRequest,
): ReferenceHit[] {
  const where = Object.entries(request.where ?? {});
  const visible = corpus.filter(
    (doc) =>
      doc.owner === userId && where.every(([column, value]) => doc[column as keyof Doc] === value),
  );
  const lexical =
    request.query === undefined
      ? new Map<number, Candidate>()
      : rankBy(
          visible,
          (doc) => {
            const words = queryWords(request.query!);
            const count = lexemes(`${doc.title} ${doc.body ?? ''}`).filter((w) =>
              words.has(w),
            ).length;
            return count === 0 ? undefined : count;
          },
          (a, b) => b - a,
        );
  const semantic =
    request.vector === undefined
      ? new Map<number, Candidate>()
      : rankBy(
          visible,
          (doc) => {
            if (!doc.embedding || doc.embedding.every((x) => x === 0)) return undefined;
            return cosineDistance(doc.embedding, request.vector!);
          },
          (a, b) => a - b,
        );
  const ids = new Set([...lexical.keys(), ...semantic.keys()]);
  const hybrid = request.mode === 'hybrid';
  const hits = [...ids].map((id) => {
    const f = lexical.get(id);
    const v = semantic.get(id);
    const doc = (f ?? v)!.doc;
    const fusion = (f ? 1 / (K + f.rank) : 0) + (v ? 1 / (K + v.rank) : 0);
    return {
      id,
      fusion,
      hit: {
        record: Object.fromEntries(docsSearch.select.map((c) => [c, doc[c as keyof Doc]])),
        fullTextScore: f ? Math.fround(f.value * COVER) : null,
        fullTextRank: f ? f.rank : null,
        vectorDistance: v ? v.value : null,
        vectorSimilarity: v ? 1 - v.value : null,
        vectorRank: v ? v.rank : null,
        fusionScore: hybrid ? fusion : null,
      } satisfies ReferenceHit,
    };
  });
  hits.sort((a, b) => {
    if (hybrid) return b.fusion - a.fusion || a.id - b.id;
    const rank = (h: (typeof hits)[number]) => h.hit.fullTextRank ?? h.hit.vectorRank ?? 0;
    return rank(a) - rank(b);
  });
  return hits.slice(0, request.limit ?? 10).map((h) => h.hit);
}
