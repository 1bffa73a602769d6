const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is case-insensitive (RFC
 * 7235); surrounding blanks are allowed.
 *
 * @returns the token; `undefined` without a header; `null` when the header is not a bearer
 *   credential (callers refuse it like a wrong token)
 */
export function readBearer(header: string | null | undefined): string | null | undefined {
  if (header === undefined || header === null) return undefined;
  return BEARER.exec(header)?.[1] ?? null;
}
