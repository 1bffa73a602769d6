import type { Infer, Schema } from '@platform/schema';
import type { FunctionAccess } from '@platform/schema/contract';
import type { PlatformFunction } from './define-function.ts';

type JsonPrimitive = string | number | boolean | null;
// Values JSON.stringify drops from objects (and turns into null in arrays).
type Dropped = undefined | symbol | ((...args: never[]) => unknown);

/**
 * The type a value has after `JSON.stringify` and `JSON.parse`: dates and other `toJSON`
 * values become what `toJSON` returns, functions, symbols and `undefined` members are dropped.
 * Streams stay `unknown`: read them with `functions.stream`.
 */
export type Jsonify<T> = T extends JsonPrimitive
  ? T
  : T extends { toJSON(): infer J }
    ? Jsonify<J>
    : T extends ReadableStream<unknown> | AsyncIterable<unknown>
      ? unknown
      : T extends Dropped
        ? never
        : T extends readonly (infer Item)[]
          ? (Item extends Dropped ? null : Jsonify<Item>)[]
          : T extends object
            ? { [K in keyof T as T[K] extends Dropped ? never : K]: Jsonify<T[K]> }
            : unknown;

/**
 * The `Register` entry of one Function for `@platform/browser`: its parsed input, its result
 * as the browser receives it, and its access. `platform types` writes one per Function.
 *
 * @example
 * ```ts
 * import type { FunctionTypes } from '@platform/server';
 *
 * declare module '@platform/browser' {
 *   interface Register {
 *     functions: {
 *       saveTodo: FunctionTypes<typeof import('./functions/save-todo/index.js').default, 'user'>;
 *     };
 *   }
 * }
 * ```
 */
export type FunctionTypes<F, Access extends FunctionAccess> =
  F extends PlatformFunction<infer S extends Schema, infer R>
    ? { input: Infer<S>; result: Jsonify<Awaited<R>>; access: Access }
    : never;
