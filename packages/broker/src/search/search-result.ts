import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { SearchDeclaration } from '@platform/schema/manifest';
import type { SearchRow } from './search-sql.ts';

/** One hit as the `dataSearch` route answers it (spec 2.5). */
export interface SearchHit {
  /** Only the declared `select` columns. */
  readonly record: JsonObject;
  readonly fullTextScore: number | null;
  readonly fullTextRank: number | null;
  readonly vectorDistance: number | null;
  readonly vectorSimilarity: number | null;
  readonly vectorRank: number | null;
  readonly fusionScore: number | null;
}

/** The size limits a search answer must fit (spec 8); tests pass smaller ones. */
export interface SearchSizeLimits {
  readonly recordMaxBytes: number;
  readonly responseMaxBytes: number;
}

const encoder = new TextEncoder();
const utf8Bytes = (text: string): number => encoder.encode(text).length;

function tooLarge(message: string, details: JsonObject): PlatformError {
  return new PlatformError({ code: 'SEARCH_RESULT_TOO_LARGE', message, details });
}

/**
 * Turns the statement's rows into hits and enforces the size limits: a record whose JSON is over
 * `recordMaxBytes` (16 KiB), or a `{ hits }` body over `responseMaxBytes` (1 MiB), fails with
 * `SEARCH_RESULT_TOO_LARGE`; nothing is truncated or dropped. Sizes are UTF-8 bytes of the JSON
 * that travels. With the spec's numbers the response limit is a backstop: 50 records of 16 KiB
 * and their evidence stay under 1 MiB.
 */
export function toHits(
  declaration: SearchDeclaration,
  rows: readonly SearchRow[],
  sizes: SearchSizeLimits = limits.search,
): SearchHit[] {
  const hits: SearchHit[] = [];
  // `{"hits":[` + `]}` and the commas between hits.
  let total = 11 + Math.max(0, rows.length - 1);
  for (const row of rows) {
    const record: Record<string, unknown> = {};
    declaration.select.forEach((column, i) => {
      record[column] = row[`c${i}`];
    });
    const recordJson = JSON.stringify(record);
    const recordBytes = utf8Bytes(recordJson);
    if (recordBytes > sizes.recordMaxBytes) {
      throw tooLarge(
        `A hit's record is ${recordBytes} bytes, over the ${sizes.recordMaxBytes}-byte limit; select fewer or smaller columns.`,
        { recordBytes, limit: sizes.recordMaxBytes, search: declaration.name },
      );
    }
    const distance = row.v_distance;
    const hit: SearchHit = {
      // Dates, bigints as text and the like become exactly what the route sends.
      record: JSON.parse(recordJson) as JsonObject,
      fullTextScore: row.ft_score,
      fullTextRank: row.ft_rank,
      vectorDistance: distance,
      vectorSimilarity: distance === null ? null : 1 - distance,
      vectorRank: row.v_rank,
      fusionScore: row.fusion,
    };
    total += utf8Bytes(JSON.stringify(hit));
    if (total > sizes.responseMaxBytes) {
      throw tooLarge(
        `The search answer is over the ${sizes.responseMaxBytes}-byte limit; ask for fewer hits.`,
        { limit: sizes.responseMaxBytes, search: declaration.name },
      );
    }
    hits.push(hit);
  }
  return hits;
}
