import { z } from 'zod';

/**
 * Zod building blocks shared by the contract's routes. Every object is strict: the broker and
 * the mock broker reject fields the contract does not name.
 */

/** Any JSON value. */
export const jsonValue = z.json();

/** A JSON object (not an array, not null). */
export const jsonObject = z.record(z.string(), z.json());

/** A table row: a JSON object whose `id` is the primary key. */
export const row = jsonObject;

/** A column list for `select`; omitted means every column. */
export const select = z.array(z.string().min(1)).min(1);

/**
 * An opaque file reference as it travels on the wire. The SDK types it as `FileRef`; the value
 * is the file id, so it can be stored in a text column and passed where a file id is expected.
 */
export const fileRef = z.string().min(1);

/** Bytes on the wire: standard base64 (RFC 4648 section 4). */
export const base64 = z.base64();

/** The caller of an invocation (spec 2.4: `{ id }` or `null`). */
export const user = z.strictObject({ id: z.string().min(1) });

/** An ISO 8601 timestamp. */
export const timestamp = z.iso.datetime({ offset: true });

/** The acknowledgement of a route that returns nothing else. */
export const ok = z.strictObject({ ok: z.literal(true) });
