/** The four calls of `ctx.ai`. */
export type AiCallKind = 'generateText' | 'streamText' | 'generateObject' | 'generateImage';

/**
 * One AI call as the dashboard lists it: never the prompt, the output, the model or the key.
 * `outcome` is `ok`, `cancelled`, or the error code the Function received.
 */
export interface AiCallRecord {
  readonly at: string;
  readonly functionName: string;
  readonly requestId: string;
  readonly kind: AiCallKind;
  readonly durationMs: number;
  readonly outcome: string;
}

/** How many calls the broker remembers: the newest first, the oldest forgotten. */
export const AI_CALLS_KEPT = 500;

/**
 * The recent AI calls of this broker, in memory: a development dashboard needs the last few
 * hundred calls, not a history, and keeping them out of the database keeps every prompt-free
 * record gone when the broker stops.
 */
export class AiCalls {
  readonly #ring: AiCallRecord[] = [];

  /** Remembers one finished call. */
  add(record: AiCallRecord): void {
    this.#ring.push(record);
    if (this.#ring.length > AI_CALLS_KEPT) this.#ring.shift();
  }

  /** The newest `limit` calls, newest first. */
  list(limit = 50): AiCallRecord[] {
    return this.#ring.slice(-limit).reverse();
  }
}
