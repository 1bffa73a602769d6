import type { Infer, Schema } from '@platform/schema';
import { isSchema } from '@platform/schema';
import { flushContext } from './context/create-context.ts';
import type { HandlerContext } from './context/types.ts';

/** What a handler may return: a JSON value, or a stream to send as it is produced. */
export type HandlerResult = unknown;

/** The argument of {@link defineFunction}: exactly `input` and `handler`. */
export interface FunctionDefinition<S extends Schema, R> {
  /** The input schema; input is parsed with it before the handler runs. */
  readonly input: S;
  /** Runs one invocation with the handler context. */
  readonly handler: (ctx: HandlerContext<Infer<S>>) => R | Promise<R>;
}

/** A defined Function: its definition, and `run` for tests. */
export interface PlatformFunction<S extends Schema = Schema, R = HandlerResult>
  extends FunctionDefinition<S, R> {
  /**
   * Parses `ctx.input` with the schema (`INVALID_INPUT` on failure), runs the handler with the
   * parsed input and sends buffered logs. Use it with `createTestContext` from
   * `@platform/server/testing`.
   */
  run(ctx: HandlerContext<unknown>): Promise<Awaited<R>>;
}

const brand = Symbol.for('@platform/server.Function');

/**
 * Defines a Function. It accepts exactly `{ input, handler }`; the handler's `ctx.input` is
 * typed from the schema. A Function file default-exports the result.
 *
 * @example
 * ```ts
 * import { defineFunction, errors, s } from '@platform/server';
 *
 * export default defineFunction({
 *   input: s.object({ id: s.uuid() }),
 *   handler: async (ctx) => {
 *     const todo = await ctx.data.table('todos').getById(ctx.input.id);
 *     if (!todo) throw errors.notFound('TODO_NOT_FOUND', `No todo ${ctx.input.id}`);
 *     return todo;
 *   },
 * });
 * ```
 */
export function defineFunction<S extends Schema, R>(
  definition: FunctionDefinition<S, R>,
): PlatformFunction<S, R> {
  if (typeof definition !== 'object' || definition === null) {
    throw new TypeError('defineFunction takes { input, handler }');
  }
  const extra = Object.keys(definition).filter((key) => key !== 'input' && key !== 'handler');
  if (extra.length > 0) {
    throw new TypeError(
      `defineFunction accepts exactly { input, handler }; unexpected ${extra.join(', ')}`,
    );
  }
  if (!isSchema(definition.input)) {
    throw new TypeError(
      'defineFunction: input must be a schema made with s.* (for example s.object({}))',
    );
  }
  if (typeof definition.handler !== 'function')
    throw new TypeError('defineFunction: handler must be a function');
  const { input, handler } = definition;
  const fn: PlatformFunction<S, R> = {
    input,
    handler,
    async run(ctx): Promise<Awaited<R>> {
      const parsed = input.parse(ctx.input);
      const scoped = Object.create(ctx, {
        input: { value: parsed, enumerable: true },
      }) as HandlerContext<Infer<S>>;
      try {
        return (await handler(scoped)) as Awaited<R>;
      } finally {
        await flushContext(ctx);
      }
    },
  };
  Object.defineProperty(fn, brand, { value: true });
  return Object.freeze(fn);
}

/** True for a Function made by {@link defineFunction} (from any copy of this package). */
export function isPlatformFunction(value: unknown): value is PlatformFunction {
  return typeof value === 'object' && value !== null && brand in value;
}
