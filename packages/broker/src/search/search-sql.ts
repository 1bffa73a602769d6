import { limits } from '@platform/schema';
import type { Statement } from '../data/sql.ts';
import { quoteIdent } from '../data/sql.ts';
import { matchFunction } from './search-documents.ts';
import type { SearchRequest } from './search-options.ts';
import type { PreparedSearch } from './search-setup.ts';

/** One row of a search statement: the evidence columns, then `c0`, `c1`, ... for `select`. */
export interface SearchRow {
  readonly id: unknown;
  readonly ft_score: number | null;
  readonly ft_rank: number | null;
  readonly v_distance: number | null;
  readonly v_rank: number | null;
  readonly fusion: number | null;
  readonly [column: `c${number}`]: unknown;
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The text pgvector parses: `[1,2,3]` (JavaScript prints every float32 exactly). */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.join(',')}]`;
}

/** The text PostgreSQL parses as an array: `{1,2,3}`. */
function arrayLiteral(vector: readonly number[]): string {
  return `{${vector.join(',')}}`;
}

/**
 * The `vd` step for embeddings kept as `real[]` (a server without pgvector): pgvector's exact
 * cosine distance, `1 - dot / sqrt(|a|^2 |b|^2)` clamped to [0, 2], computed in SQL. The sums
 * run in float8 over the float4 values (each product is exact), so the ranking is pgvector's
 * exact scan's up to float32 rounding, which pgvector's own float4 sums add. The query's
 * squared norm is computed once. A zero row gives no distance (pgvector gives NaN; `greatest` and
 * `least` skip a NULL, hence the `CASE`), and a row of
 * another length (possible only in a column the broker did not add) is no candidate, where
 * pgvector would refuse the whole search.
 */
function arrayDistances(
  table: string,
  column: string,
  vector: readonly number[],
  dimensions: number,
  params: Params,
  filters: readonly string[],
): string {
  const query = `${params.add(arrayLiteral(vector))}::real[]`;
  const conditions = [
    `${column} IS NOT NULL`,
    `cardinality(${column}) = ${dimensions}`,
    ...filters,
  ].join(' AND ');
  return `vq AS MATERIALIZED (
  SELECT ${query} AS v, (SELECT sum(y::float8 * y) FROM unnest(${query}) AS q(y)) AS norm
),
vd AS MATERIALIZED (
  SELECT t."id" AS id,
         (SELECT CASE WHEN c.s IS NULL THEN NULL
                      ELSE 1::float8 - greatest(-1::float8, least(1::float8, c.s)) END
            FROM (SELECT sum(x::float8 * y) / nullif(sqrt(sum(x::float8 * x) * vq.norm), 0::float8) AS s
                    FROM unnest(${column}, vq.v) AS u(x, y)) AS c) AS distance
    FROM ${table} AS t CROSS JOIN vq
   WHERE ${conditions}
)`;
}

/**
 * The one statement that answers a search (spec 2.5), so a search is one round trip:
 *
 * - `ft`: rows whose document (the declared tsvector expression, kept indexed beside the table:
 *   see `ensureDocuments`) matches `websearch_to_tsquery(language, query)`, scored by
 *   `ts_rank_cd`, joined back to the table as the caller in score order, best 100 by score then
 *   `id`. An empty parsed query matches nothing.
 * - `vd`/`vr`: the exact cosine distance `<=>` of every visible row with an embedding (or its
 *   SQL equivalent for `real[]` embeddings: {@link arrayDistances}), computed
 *   in a `MATERIALIZED` CTE so the planner can never answer the ordering from an approximate
 *   (HNSW, IVFFlat) index; rows whose distance is undefined (zero vectors) are left out; best
 *   100 by distance then `id`.
 * - ranks are one-based `row_number()`s in that order; hybrid joins both candidate lists (full
 *   outer join on `id`) and scores `sum 1 / (60 + rank)` in float8, ties by `id`.
 * - every component reads the table as the caller (the statement runs under `runAs`), so RLS and
 *   the `where` filters apply before the 100-candidate cut.
 * - the declared `select` columns are read only for the final `limit` hits, aliased `c0`, `c1`,
 *   ... so no column name can collide with the evidence columns.
 */
export function buildSearchStatement(search: PreparedSearch, request: SearchRequest): Statement {
  const { declaration } = search;
  const { candidatesPerComponent: cap, fusionK } = limits.search;
  const params = new Params();
  const table = `public.${quoteIdent(declaration.table)}`;
  const filters = request.where.map(([column, value]) =>
    value === null
      ? `t.${quoteIdent(column)} IS NULL`
      : `t.${quoteIdent(column)} = ${params.add(value)}`,
  );
  const and = (conditions: string[]) => conditions.join(' AND ');
  const ctes: string[] = [];

  if (request.query !== undefined) {
    const fullText = declaration.fullText!;
    const query = `websearch_to_tsquery('${fullText.language}'::regconfig, ${params.add(request.query)})`;
    // The matches come sorted, so the join can stop at the 100th visible row: the caller's
    // table is read (and its policy checked) row by row from the best match, not whole.
    ctes.push(`ft AS (
  SELECT t."id" AS id, m.score AS score
    FROM (SELECT id, score FROM ${matchFunction(declaration)}(${query})
           ORDER BY score DESC, id ASC) AS m
    JOIN ${table} AS t ON t."id" = m.id
   ${filters.length > 0 ? `WHERE ${and(filters)}` : ''}
   ORDER BY m.score DESC, m.id ASC
   LIMIT ${cap}
)`);
    ctes.push(`ftr AS (
  SELECT id, score, (row_number() OVER (ORDER BY score DESC, id ASC))::int AS rank FROM ft
)`);
  }

  if (request.vector !== undefined) {
    const column = `t.${quoteIdent(declaration.vector!.column)}`;
    if (search.vectorStorage === 'array') {
      ctes.push(
        arrayDistances(
          table,
          column,
          request.vector,
          declaration.vector!.dimensions,
          params,
          filters,
        ),
      );
    } else {
      const vector = `${params.add(vectorLiteral(request.vector))}::vector`;
      ctes.push(`vd AS MATERIALIZED (
  SELECT t."id" AS id, (${column} <=> ${vector})::float8 AS distance
    FROM ${table} AS t
   WHERE ${and([`${column} IS NOT NULL`, ...filters])}
)`);
    }
    ctes.push(`vr AS (
  SELECT id, distance, (row_number() OVER (ORDER BY distance ASC, id ASC))::int AS rank
    FROM (SELECT id, distance FROM vd WHERE distance <> 'NaN'::float8
           ORDER BY distance ASC, id ASC LIMIT ${cap}) AS c
)`);
  }

  const limit = params.add(request.limit);
  if (request.mode === 'hybrid') {
    ctes.push(`hits AS (
  SELECT coalesce(f.id, v.id) AS id, f.score AS ft_score, f.rank AS ft_rank,
         v.distance AS v_distance, v.rank AS v_rank,
         coalesce(1::float8 / (${fusionK} + f.rank), 0::float8)
           + coalesce(1::float8 / (${fusionK} + v.rank), 0::float8) AS fusion
    FROM ftr AS f FULL OUTER JOIN vr AS v ON f.id = v.id
   ORDER BY fusion DESC, id ASC
   LIMIT ${limit}
)`);
  } else if (request.mode === 'fullText') {
    ctes.push(`hits AS (
  SELECT id, score AS ft_score, rank AS ft_rank, NULL::float8 AS v_distance, NULL::int AS v_rank,
         NULL::float8 AS fusion
    FROM ftr ORDER BY rank LIMIT ${limit}
)`);
  } else {
    ctes.push(`hits AS (
  SELECT id, NULL::real AS ft_score, NULL::int AS ft_rank, distance AS v_distance, rank AS v_rank,
         NULL::float8 AS fusion
    FROM vr ORDER BY rank LIMIT ${limit}
)`);
  }
  const order =
    request.mode === 'hybrid'
      ? 'h.fusion DESC, h.id ASC'
      : request.mode === 'fullText'
        ? 'h.ft_rank'
        : 'h.v_rank';
  const selected = declaration.select.map((column, i) => `t.${quoteIdent(column)} AS c${i}`);
  const text = `WITH ${ctes.join(',\n')}
SELECT h.id, h.ft_score, h.ft_rank, h.v_distance, h.v_rank, h.fusion, ${selected.join(', ')}
  FROM hits AS h JOIN ${table} AS t ON t."id" = h.id
 ORDER BY ${order}`;
  return { text, values: params.values };
}
