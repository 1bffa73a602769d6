import { type ErrorCode, errorStatus, retryableCodes } from './codes.ts';
import { errorMeanings } from './meanings.ts';

/** One entry of the error catalog: how a code travels over HTTP and what it means. */
export interface CatalogEntry {
  /** HTTP status the broker answers with. */
  readonly status: number;
  /** Whether the same request may succeed if sent again later. */
  readonly retryable: boolean;
  /** One line a person can act on. */
  readonly meaning: string;
}

/**
 * Every error code the platform itself raises, with its HTTP status, whether it is retryable
 * and what it means. Functions may throw their own codes through {@link errors}; those are not
 * listed here.
 */
export const errorCatalog: { readonly [Code in ErrorCode]: CatalogEntry } =
  /* @__PURE__ */ buildCatalog();

function buildCatalog(): { [Code in ErrorCode]: CatalogEntry } {
  const catalog = {} as { [Code in ErrorCode]: CatalogEntry };
  for (const code of Object.keys(errorStatus) as ErrorCode[]) {
    catalog[code] = {
      status: errorStatus[code],
      retryable: retryableCodes.has(code),
      meaning: errorMeanings[code],
    };
  }
  return catalog;
}
