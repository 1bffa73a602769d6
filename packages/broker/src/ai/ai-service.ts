import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { JsonObject, JsonValue } from '@platform/errors';
import { PlatformError } from '@platform/errors';
import { sniffImageType } from '@platform/schema/contract';
import type { FilePart, ImagePart, ModelMessage } from 'ai';
import type { FileService } from '../files/file-service.ts';
import type { InvocationGrant } from '../functions/invocation-tokens.ts';
import type { LogSink } from '../logs/log-sink.ts';
import { type CheckedAttachment, checkAttachments, type WireAttachment } from './ai-attachments.ts';
import { AI_CONTENT_SHOWN, type AiCallKind, AiCalls, shownContent } from './ai-calls.ts';
import { providerFailure } from './ai-errors.ts';
import type { AiProvider } from './ai-provider.ts';
import { type AiSdk, loadAiSdk } from './ai-sdk.ts';

/** What `generateText` and `streamText` receive (the runtime contract's body). */
export interface TextCall {
  readonly instructions?: string | undefined;
  readonly prompt: string;
  readonly attachments?: readonly WireAttachment[] | undefined;
}

/** What `generateObject` receives. */
export interface ObjectCall {
  readonly prompt: string;
  readonly schema: JsonObject;
  readonly attachments?: readonly WireAttachment[] | undefined;
}

/** Who calls, and the signal that ends the call when the Function goes away. */
export interface AiCallContext {
  readonly grant: InvocationGrant;
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link AiService}. */
export interface AiServiceOptions {
  /** The models; `undefined` when AI is not configured: every call answers `FEATURE_NOT_AVAILABLE`. */
  readonly provider: AiProvider | undefined;
  readonly files: FileService;
  readonly logs: LogSink;
  /** Longest a provider call may take before it counts as unavailable. @default 120000 */
  readonly timeoutMs?: number;
  /** Keep prompts and outputs in {@link AiService.calls} (a local opt-in). @default false */
  readonly showContent?: boolean;
}

/** One call being served: what its listing record needs. */
interface Trace {
  readonly kind: AiCallKind;
  readonly ctx: AiCallContext;
  readonly started: number;
  /** The input to show; `undefined` unless the developer opted in. */
  readonly input: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 120_000;

function blankPrompt(prompt: string): void {
  if (prompt.trim() === '') {
    throw new PlatformError({
      code: 'AI_INPUT_INVALID',
      message: 'prompt must be a non-empty string.',
      details: { field: 'prompt' },
    });
  }
}

/**
 * `ctx.ai` in the broker: every call is checked (prompt, attachments read as the caller) before
 * the provider is asked, runs on the model the broker's configuration picks for its capability,
 * and answers only the result: no model name, URL, key or provider envelope. Provider failures
 * go to the broker log; the Function gets a `PlatformError` with a stable code. Each call is
 * listed (without its content) for the dashboard.
 */
export class AiService {
  readonly #provider: AiProvider | undefined;
  readonly #files: FileService;
  readonly #logs: LogSink;
  readonly #timeoutMs: number;
  readonly #showContent: boolean;
  /** The recent calls, for the dashboard. */
  readonly calls = new AiCalls();

  constructor(options: AiServiceOptions) {
    this.#provider = options.provider;
    this.#files = options.files;
    this.#logs = options.logs;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#showContent = options.showContent ?? false;
  }

  /** `ai.generateText`: the whole text. */
  async generateText(call: TextCall, ctx: AiCallContext): Promise<{ text: string }> {
    const trace = this.#trace('generateText', ctx, call.prompt, call.instructions);
    return this.#run(
      trace,
      ({ text }) => text,
      async (signal, { generateText }) => {
        const prepared = await this.#prepare(call, ctx);
        const result = await generateText({
          model: prepared.model,
          ...(call.instructions === undefined ? {} : { system: call.instructions }),
          messages: prepared.messages,
          maxRetries: 0,
          abortSignal: signal,
        });
        return { text: result.text };
      },
    );
  }

  /** `ai.generateObject`: a JSON value for the schema (the SDK validates it once more). */
  async generateObject(call: ObjectCall, ctx: AiCallContext): Promise<{ object: JsonValue }> {
    const trace = this.#trace('generateObject', ctx, call.prompt);
    return this.#run(
      trace,
      ({ object }) => JSON.stringify(object),
      async (signal, { generateObject, jsonSchema }) => {
        const prepared = await this.#prepare(call, ctx, this.#models().object);
        const result = await generateObject({
          model: prepared.model,
          schema: jsonSchema(call.schema),
          messages: prepared.messages,
          maxRetries: 0,
          abortSignal: signal,
        });
        return { object: result.object as JsonValue };
      },
    );
  }

  /** `ai.generateImage`: PNG bytes in base64. */
  async generateImage(
    call: { prompt: string },
    ctx: AiCallContext,
  ): Promise<{ data: string; contentType: 'image/png' }> {
    const trace = this.#trace('generateImage', ctx, call.prompt);
    const described = ({ data }: { data: string }) =>
      `a PNG image of ${Buffer.byteLength(data, 'base64')} bytes`;
    return this.#run(trace, described, async (signal, { generateImage }) => {
      blankPrompt(call.prompt);
      const { image } = await generateImage({
        model: this.#models().image,
        prompt: call.prompt,
        maxRetries: 0,
        abortSignal: signal,
      });
      if (sniffImageType(image.uint8Array) !== 'image/png') {
        throw new PlatformError({
          code: 'AI_OUTPUT_INVALID',
          message: 'The AI provider answered with an image that is not a PNG.',
        });
      }
      return { data: image.base64, contentType: 'image/png' as const };
    });
  }

  /**
   * `ai.streamText`: text chunks as the provider sends them. The provider is asked before this
   * resolves, so a failure before the first chunk is an ordinary error answer; a failure later
   * errors the stream with the same `PlatformError` codes. Cancelling the stream (the Function
   * or the browser went away) aborts the provider request.
   */
  async streamText(call: TextCall, ctx: AiCallContext): Promise<ReadableStream<string>> {
    const trace = this.#trace('streamText', ctx, call.prompt, call.instructions);
    const abort = new AbortController();
    const signal = this.#signal(ctx, abort.signal);
    // What was streamed, kept only for an opted-in listing.
    let streamed = '';
    const sent = (text: string) => {
      if (trace.input !== undefined && streamed.length <= AI_CONTENT_SHOWN) streamed += text;
      return text;
    };
    const finish = (outcome: string) =>
      this.#record(trace, outcome, outcome === 'ok' ? streamed : undefined);
    let reader: ReadableStreamDefaultReader<{ type: string; text?: string; error?: unknown }>;
    const next = async (): Promise<string | null> => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        if (value.type === 'text-delta' && value.text) return value.text;
        if (value.type === 'error') throw value.error;
        if (value.type === 'abort') throw new DOMException('The call was aborted.', 'AbortError');
      }
    };
    let first: string | null;
    try {
      const { streamText } = await loadAiSdk();
      const prepared = await this.#prepare(call, ctx);
      const result = streamText({
        model: prepared.model,
        ...(call.instructions === undefined ? {} : { system: call.instructions }),
        messages: prepared.messages,
        maxRetries: 0,
        abortSignal: signal,
        // Errors arrive as stream parts below; the SDK must not print them itself.
        onError: () => {},
      });
      reader = result.fullStream.getReader() as typeof reader;
      first = await next();
    } catch (error) {
      abort.abort();
      throw this.#failed(trace, error);
    }
    return new ReadableStream<string>({
      start(controller) {
        if (first === null) {
          controller.close();
          finish('ok');
        } else {
          controller.enqueue(sent(first));
        }
      },
      pull: async (controller) => {
        try {
          const text = await next();
          if (text === null) {
            controller.close();
            finish('ok');
          } else {
            controller.enqueue(sent(text));
          }
        } catch (error) {
          controller.error(this.#failed(trace, error));
        }
      },
      cancel: async () => {
        abort.abort();
        await reader.cancel().catch(() => {});
        finish('cancelled');
      },
    });
  }

  #trace(kind: AiCallKind, ctx: AiCallContext, prompt: string, instructions?: string): Trace {
    const input = this.#showContent
      ? instructions === undefined
        ? prompt
        : `${instructions}\n\n${prompt}`
      : undefined;
    return { kind, ctx, started: performance.now(), input };
  }

  async #run<T>(
    trace: Trace,
    output: (result: T) => string,
    body: (signal: AbortSignal, sdk: AiSdk) => Promise<T>,
  ): Promise<T> {
    try {
      const sdk = await loadAiSdk();
      const result = await body(this.#signal(trace.ctx), sdk);
      this.#record(trace, 'ok', trace.input === undefined ? undefined : output(result));
      return result;
    } catch (error) {
      throw this.#failed(trace, error);
    }
  }

  #signal(ctx: AiCallContext, ...more: AbortSignal[]): AbortSignal {
    return AbortSignal.any([
      AbortSignal.timeout(this.#timeoutMs),
      ...(ctx.signal ? [ctx.signal] : []),
      ...more,
    ]);
  }

  async #prepare(
    call: TextCall | ObjectCall,
    ctx: AiCallContext,
    model?: LanguageModelV3,
  ): Promise<{ model: LanguageModelV3; messages: ModelMessage[] }> {
    const { text, vision } = this.#models();
    const chosen = model ?? text;
    blankPrompt(call.prompt);
    const attachments = await checkAttachments(call.attachments, async (ref) => {
      await this.#files.checkGrantedRead(ctx.grant.fileGrant, ref);
      const { file, data } = await this.#files.download(ctx.grant.caller, ref);
      return { data, contentType: file.contentType };
    });
    return {
      // Attachments need the vision model; a structured call keeps its own model.
      model: attachments.length > 0 && chosen === text ? vision : chosen,
      messages: [
        { role: 'user', content: [{ type: 'text', text: call.prompt }, ...attachments.map(part)] },
      ],
    };
  }

  // Called inside each call's error handling, so an unconfigured AI is recorded like any failure.
  #models(): AiProvider {
    if (this.#provider !== undefined) return this.#provider;
    throw new PlatformError({
      code: 'FEATURE_NOT_AVAILABLE',
      message:
        'AI is not configured on this service: its operator sets an AI provider (PLATFORM_AI_BASE_URL, or PLATFORM_AI_PROVIDER=offline) for ctx.ai to answer.',
    });
  }

  #failed(trace: Trace, cause: unknown): PlatformError {
    const { kind, ctx } = trace;
    const { error, reason } = providerFailure(cause);
    this.#record(trace, error.code);
    if (error.code.startsWith('AI_PROVIDER') || error.code === 'AI_OUTPUT_INVALID') {
      this.#logs.write({
        at: new Date().toISOString(),
        level: 'error',
        message: `ai.${kind} failed (${this.#provider?.name}${this.#provider?.endpoint === undefined ? '' : ` at ${this.#provider.endpoint}`}): ${reason}`,
        requestId: ctx.grant.requestId,
        functionName: ctx.grant.functionName,
      });
    }
    return error;
  }

  #record(trace: Trace, outcome: string, output?: string): void {
    const { kind, ctx, started, input } = trace;
    this.calls.add({
      at: new Date().toISOString(),
      functionName: ctx.grant.functionName,
      requestId: ctx.grant.requestId,
      kind,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      outcome,
      ...(input === undefined
        ? {}
        : {
            content: {
              input: shownContent(input),
              ...(output === undefined ? {} : { output: shownContent(output) }),
            },
          }),
    });
  }
}

function part(attachment: CheckedAttachment): ImagePart | FilePart {
  return attachment.kind === 'image'
    ? { type: 'image', image: attachment.data, mediaType: attachment.mediaType }
    : { type: 'file', data: attachment.data, mediaType: attachment.mediaType };
}
