import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import {
  jsonValue,
  realtimeChannelName,
  realtimeEventName,
  realtimeMessageBytes,
} from '@platform/schema/contract';
import { z } from 'zod';

const ref = z.string().min(1).max(64);
const after = z.int().min(0).optional();
const presenceState = z.record(z.string(), jsonValue);

/**
 * The frames a client sends on the realtime socket (docs/realtime.md, "Protocol"). Each may carry
 * a `ref` the broker's `reply` names.
 */
export const clientFrameSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('join'),
    ref,
    channel: realtimeChannelName,
    /** The last sequence number seen on the channel before a reconnect: the reply counts the rest. */
    after,
    /** Presence state to announce on joining. */
    presence: presenceState.optional(),
  }),
  z.strictObject({ type: z.literal('leave'), ref, channel: realtimeChannelName }),
  z.strictObject({
    type: z.literal('broadcast'),
    ref,
    channel: realtimeChannelName,
    event: realtimeEventName,
    payload: jsonValue,
  }),
  z.strictObject({
    type: z.literal('track'),
    ref,
    channel: realtimeChannelName,
    state: presenceState,
  }),
  z.strictObject({
    type: z.literal('subscribe'),
    ref,
    /** The client's name for the subscription; its `change` frames carry it. */
    id: z.string().min(1).max(64),
    table: z.string().min(1).max(63),
    filter: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .optional(),
    after,
  }),
  z.strictObject({ type: z.literal('unsubscribe'), ref, id: z.string().min(1).max(64) }),
]);

/** A frame a client sends. */
export type ClientFrame = z.output<typeof clientFrameSchema>;

/**
 * Reads one text frame. `ref` is the frame's `ref` when it has one, so that even a refused frame's
 * reply names it; `frame` throws `REALTIME_MESSAGE_TOO_LARGE` beyond
 * `limits.realtime.messageMaxBytes` and `INVALID_INPUT`, naming the first problem, for anything
 * that is not a known frame.
 */
export function readClientFrame(text: string): {
  ref: string | undefined;
  frame: () => ClientFrame;
} {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const ref =
    typeof raw === 'object' && raw !== null && typeof (raw as { ref?: unknown }).ref === 'string'
      ? (raw as { ref: string }).ref.slice(0, 64)
      : undefined;
  return {
    ref,
    frame: () => {
      const bytes = Buffer.byteLength(text);
      if (bytes > limits.realtime.messageMaxBytes) {
        throw new PlatformError({
          code: 'REALTIME_MESSAGE_TOO_LARGE',
          message: `The frame is ${bytes} bytes; a realtime message is at most ${limits.realtime.messageMaxBytes}.`,
          details: { bytes, maxBytes: limits.realtime.messageMaxBytes },
        });
      }
      if (raw === undefined) {
        throw new PlatformError({
          code: 'INVALID_INPUT',
          message: 'A realtime frame is one JSON object.',
        });
      }
      const parsed = clientFrameSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new PlatformError({
          code: 'INVALID_INPUT',
          message: `The realtime frame is malformed: ${issue?.path.join('.') || '(frame)'}: ${issue?.message ?? 'invalid'}.`,
          details: { field: issue?.path.join('.') ?? '' },
        });
      }
      return parsed.data;
    },
  };
}

/** `REALTIME_MESSAGE_TOO_LARGE` for a broadcast or presence state over the limit. */
export function checkMessageSize(
  message: unknown,
  maxBytes = limits.realtime.messageMaxBytes,
): void {
  const bytes = realtimeMessageBytes(message);
  if (bytes > maxBytes) {
    throw new PlatformError({
      code: 'REALTIME_MESSAGE_TOO_LARGE',
      message: `The realtime message is ${bytes} bytes of JSON; at most ${maxBytes} are allowed.`,
      details: { bytes, maxBytes },
    });
  }
}
