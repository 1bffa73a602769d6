import { PlatformError } from '@platform/errors';
import type { Declarations } from '@platform/schema/contract';
import type { SearchDeclaration } from '@platform/schema/manifest';
import type { Statement } from '../data/sql.ts';
import type { Database } from '../db/database.ts';
import { runAs } from '../db/run-as.ts';
import type { Caller } from '../kernel/caller.ts';
import { toSearchError } from './search-errors.ts';
import {
  type FilterValue,
  readSearchOptions,
  type SearchRequest,
  sdkSearchDeclarations,
} from './search-options.ts';
import { type SearchHit, type SearchSizeLimits, toHits } from './search-result.ts';
import { type FilterKind, type PreparedSearch, prepareSearch } from './search-setup.ts';
import { buildSearchStatement, type SearchRow } from './search-sql.ts';

/** Tuning of {@link SearchService}. */
export interface SearchServiceOptions {
  /**
   * `statement_timeout` of each search; past it the call fails with `SEARCH_UNAVAILABLE`.
   * @default 10000
   */
  readonly statementTimeoutMs?: number;
  /** Record and response limits. @default limits.search (16 KiB, 1 MiB) */
  readonly sizes?: SearchSizeLimits;
}

/** How {@link SearchService.prepare} left one declaration. */
export interface SearchPreparation {
  readonly name: string;
  /** `undefined` when the search is ready; otherwise what is wrong, for the terminal. */
  readonly problem: string | undefined;
}

/**
 * The declared searches of `data.search`, served for real (spec 2.5): each call re-checks the
 * options against the declaration, runs one statement as the caller (so RLS applies), and
 * returns the hits with their ranking evidence. The database objects a declaration needs (GIN
 * expression index, `vector(n)` column) are created on {@link SearchService.prepare} or on the
 * first call, and retried after a failure (a migration may add the missing table).
 *
 * @example
 * ```ts
 * const search = new SearchService(db, manifest.data.search);
 * await search.prepare();
 * const { hits } = await search.search(caller, 'notes', { mode: 'fullText', query: 'tea' });
 * ```
 */
export class SearchService {
  readonly #db: Database;
  readonly #declarations: ReadonlyMap<string, SearchDeclaration>;
  /** What the options are checked against: the SDK's `declared.searches`. */
  readonly #summaries: Declarations['searches'];
  readonly #prepared = new Map<string, Promise<PreparedSearch>>();
  readonly #timeoutMs: number;
  readonly #sizes: SearchSizeLimits | undefined;

  constructor(
    db: Database,
    declarations: readonly SearchDeclaration[],
    options: SearchServiceOptions = {},
  ) {
    this.#db = db;
    this.#declarations = new Map(declarations.map((d) => [d.name, d]));
    this.#summaries = sdkSearchDeclarations(declarations);
    this.#timeoutMs = options.statementTimeoutMs ?? 10_000;
    this.#sizes = options.sizes;
  }

  /** Prepares every declaration now; problems are reported, not thrown. */
  async prepare(): Promise<SearchPreparation[]> {
    const out: SearchPreparation[] = [];
    for (const name of this.#declarations.keys()) {
      try {
        await this.#prepare(name);
        out.push({ name, problem: undefined });
      } catch (error) {
        out.push({ name, problem: toSearchError(error, name).message });
      }
    }
    return out;
  }

  /** Forgets what was prepared (after migrations ran again). */
  invalidate(): void {
    this.#prepared.clear();
  }

  /**
   * Runs the search `name` for `caller`. `options` is untrusted JSON: every rule of spec 2.5 is
   * checked here. Fails with a `PlatformError` whose code is one of the `SEARCH_*` codes, or
   * `PERMISSION_DENIED` when grants refuse the read.
   */
  async search(caller: Caller, name: string, options: unknown): Promise<{ hits: SearchHit[] }> {
    // SEARCH_NOT_DECLARED included: the name is checked against the same summaries.
    const request = readSearchOptions(this.#summaries, name, options);
    const declaration = this.#declarations.get(name)!;
    let rows: SearchRow[];
    try {
      const prepared = await this.#prepare(name);
      checkFilterKinds(prepared.filterKinds, request);
      const statement = buildSearchStatement(prepared, request);
      rows = await runAs(this.#db, caller, async (tx) => {
        await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [
          String(this.#timeoutMs),
        ]);
        return (await tx.query<SearchRow>(statement.text, statement.values)).rows;
      });
    } catch (error) {
      const mapped = toSearchError(error, name);
      // A table or column that vanished means the prepared state is stale.
      if (mapped.code === 'SEARCH_UNAVAILABLE') this.#prepared.delete(name);
      throw mapped;
    }
    return { hits: toHits(declaration, rows, this.#sizes) };
  }

  /** The statement a search runs, for benchmarks that time the database alone. */
  async statementFor(name: string, options: unknown): Promise<Statement> {
    const declaration = this.#declarations.get(name);
    if (declaration === undefined) throw new TypeError(`No search ${name}`);
    const request = readSearchOptions(this.#summaries, name, options);
    return buildSearchStatement(await this.#prepare(name), request);
  }

  #prepare(name: string): Promise<PreparedSearch> {
    let pending = this.#prepared.get(name);
    if (!pending) {
      pending = prepareSearch(this.#db, this.#declarations.get(name)!);
      this.#prepared.set(name, pending);
      // A failure is not remembered: the next call tries again.
      pending.catch(() => this.#prepared.delete(name));
    }
    return pending;
  }
}

function checkFilterKinds(kinds: ReadonlyMap<string, FilterKind>, request: SearchRequest): void {
  for (const [column, value] of request.where) {
    if (value === null) continue;
    const kind = kinds.get(column);
    if (kind === undefined || fits(kind, value)) continue;
    throw new PlatformError({
      code: 'SEARCH_INPUT_INVALID',
      message: `where.${column} must be ${kind === 'integer' ? 'an integer' : `a ${kind}`} or null.`,
      details: { field: 'where', column, expected: kind },
    });
  }
}

function fits(kind: FilterKind, value: Exclude<FilterValue, null>): boolean {
  if (kind === 'integer') return Number.isInteger(value);
  return typeof value === kind;
}
