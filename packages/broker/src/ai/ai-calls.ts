import { minutesBefore, type PerMinute, perMinute } from '../pages/dashboard/per-minute.ts';

/** The four calls of `ctx.ai`. */
export type AiCallKind = 'generateText' | 'streamText' | 'generateObject' | 'generateImage';

/**
 * What was asked and answered, kept only when the developer opts in on this machine
 * (`PLATFORM_AI_SHOW_CONTENT=1`), each cut to {@link AI_CONTENT_SHOWN} characters.
 */
export interface AiCallContent {
  /** The instructions (when given) and the prompt. */
  readonly input: string;
  /** The text, the object's JSON or a description of the image; absent when the call failed. */
  readonly output?: string;
}

/**
 * One AI call as the dashboard lists it: never the model or the key, and the prompt and output
 * only when the developer opted in. `outcome` is `ok`, `cancelled`, or the error code the
 * Function received.
 */
export interface AiCallRecord {
  readonly at: string;
  readonly functionName: string;
  readonly requestId: string;
  readonly kind: AiCallKind;
  readonly durationMs: number;
  readonly outcome: string;
  readonly content?: AiCallContent;
}

/** The longest input or output an opted-in listing shows, in characters. */
export const AI_CONTENT_SHOWN = 2000;

/** `text` cut to {@link AI_CONTENT_SHOWN} characters, marked when cut. */
export function shownContent(text: string): string {
  return text.length <= AI_CONTENT_SHOWN ? text : `${text.slice(0, AI_CONTENT_SHOWN)}…`;
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

  /**
   * The kept calls of each minute of the hour before `until`: `ok` ones, and `failed` ones
   * (an error or a cancellation). Of the calls still kept, so a busier hour than
   * {@link AI_CALLS_KEPT} calls shows only its newest.
   */
  perMinute(until: Date): PerMinute<'ok' | 'failed'> {
    return perMinute(
      until,
      ['ok', 'failed'],
      this.#ring.map((call) => ({
        ago: minutesBefore(until, call.at),
        series: call.outcome === 'ok' ? 'ok' : 'failed',
        count: 1,
      })),
    );
  }
}
