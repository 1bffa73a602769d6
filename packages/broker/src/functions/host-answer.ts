import type { Dispatcher } from 'undici';

/** Headers that belong to the connection to the host, not to the answer passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

/** Answers up to this size (with a `content-length`) are read whole rather than streamed. */
const BUFFERED_ANSWER_BYTES = 64 * 1024;

/** How much of a streamed answer waits for its reader before the host connection is paused. */
const STREAM_QUEUE = new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 });

/**
 * The undici dispatch handler of one request to a Function host, turning the host's answer into
 * the broker's own `Response`: a small answer of known length (a `{ result }`) whole, so the
 * HTTP server writes it in one go; anything else (a `functions.stream` answer) as a byte stream
 * with backpressure, whose cancellation closes the host connection. undici's `request()` wraps
 * the same exchange in a Node `Readable` and an abort-signal listener: measured alone against a
 * Deno echo with 16 callers, it cost 41 us of CPU a call where this handler costs 24-26 us.
 */
export class HostAnswer implements Dispatcher.DispatchHandler {
  /** Settles once the head has arrived (streamed answers) or the whole answer (small ones). */
  readonly response: Promise<Response>;
  readonly #onDone: () => void;
  #resolve!: (response: Response) => void;
  #reject!: (error: Error) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  #settled = false;
  #done = false;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] | undefined;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;

  /** `onDone` runs once, when the exchange is over: the answer read, failed or aborted. */
  constructor(onDone: () => void) {
    this.#onDone = onDone;
    this.response = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Ends the exchange: the pending answer rejects, or a streamed body errors, with `reason`. */
  abort(reason: Error): void {
    if (this.#done) return;
    this.#abortReason = reason;
    // Before `onRequestStart` the request still waits in the pool: it is aborted on start.
    this.#controller?.abort(reason);
    this.onResponseError(this.#controller, reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason) controller.abort(this.#abortReason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = status;
    for (const [key, value] of Object.entries(headers)) {
      if (value === undefined || HOP_BY_HOP.has(key)) continue;
      // The host never repeats a header (it sends no cookies); a repeat is folded as HTTP allows.
      this.#headers[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    // A null-body status cannot carry a body, even an empty one.
    if (status === 204 || status === 304) {
      this.#settle(null);
      return;
    }
    if (Number(headers['content-length'] ?? Number.NaN) <= BUFFERED_ANSWER_BYTES) {
      this.#chunks = [];
      return;
    }
    const body = new ReadableStream<Uint8Array>(
      {
        start: (stream) => {
          this.#stream = stream;
        },
        pull: () => controller.resume(),
        cancel: () => {
          // The caller went away (a browser leaving a stream): drop the host connection.
          this.#stream = undefined;
          if (!this.#done)
            controller.abort(new DOMException('The stream was cancelled.', 'AbortError'));
        },
      },
      STREAM_QUEUE,
    );
    this.#settle(body);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#chunks) {
      this.#chunks.push(chunk);
      return;
    }
    const stream = this.#stream;
    // llhttp replays an empty body span when resumed mid-chunk: pausing on it would stall the
    // parser before it ever reads the socket again.
    if (!stream || chunk.length === 0) return;
    stream.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((stream.desiredSize ?? 1) <= 0) controller.pause();
  }

  onResponseEnd(): void {
    if (this.#chunks) {
      const whole = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
      // Socket reads are never shared memory.
      this.#settle(new Uint8Array(whole.buffer as ArrayBuffer, whole.byteOffset, whole.byteLength));
    }
    this.#stream?.close();
    this.#finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#done) return;
    if (!this.#settled) {
      this.#settled = true;
      this.#reject(error);
    } else this.#stream?.error(error);
    this.#finish();
  }

  #settle(body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(new Response(body, { status: this.#status, headers: this.#headers }));
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#stream = undefined;
    this.#onDone();
  }
}
