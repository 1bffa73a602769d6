import { z } from 'zod';
import { limits } from '../limits.ts';
import { contextRoutes } from '../routes.ts';
import { jsonValue } from './common.ts';
import { defineRoute } from './define.ts';

const CHANNEL = /^[A-Za-z0-9_.:-]+$/;

/** A realtime channel name: letters, digits and `:_.-`, at most `channelNameMaxLength`. */
export const realtimeChannelName = z
  .string()
  .min(1)
  .max(limits.realtime.channelNameMaxLength)
  .regex(CHANNEL, 'A channel name uses letters, digits and : _ . - only');

/** An event name of a broadcast (the receiver's switch), up to 64 characters. */
export const realtimeEventName = z.string().min(1).max(64);

/** One `realtime.channels` rule as the broker and the test kit read it. */
export interface RealtimeChannelRule {
  readonly join: 'public' | 'signed-in';
  readonly send: 'public' | 'signed-in' | 'functions';
}

/**
 * The rule of `channel` among the declared `realtime.channels`: an exact key, else the longest
 * `prefix*` key the name starts with; `undefined` when none matches (the channel is refused
 * with `REALTIME_CHANNEL_NOT_DECLARED`).
 *
 * @example
 * ```ts
 * matchRealtimeChannel({ 'room:*': { join: 'signed-in', send: 'signed-in' } }, 'room:42');
 * ```
 */
export function matchRealtimeChannel<Rule>(
  channels: Readonly<Record<string, Rule>>,
  channel: string,
): Rule | undefined {
  if (Object.hasOwn(channels, channel) && !channel.endsWith('*')) return channels[channel];
  let best: { length: number; rule: Rule } | undefined;
  for (const [key, rule] of Object.entries(channels)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (channel.startsWith(prefix) && (best === undefined || prefix.length > best.length)) {
      best = { length: prefix.length, rule };
    }
  }
  return best?.rule;
}

/**
 * The bytes of a realtime message as it travels (its JSON in UTF-8), checked against
 * `limits.realtime.messageMaxBytes`: `REALTIME_MESSAGE_TOO_LARGE` beyond it, in the broker, the
 * server SDK and the test kit alike.
 */
export function realtimeMessageBytes(message: unknown): number {
  return new TextEncoder().encode(JSON.stringify(message) ?? '').byteLength;
}

/** `realtime.broadcast(channel, event, payload)` of a Function. */
export const realtimeBroadcast = defineRoute('realtimeBroadcast', contextRoutes.realtimeBroadcast, {
  summary: 'Broadcast an event to the subscribers of a declared realtime channel.',
  request: z.strictObject({
    channel: realtimeChannelName,
    event: realtimeEventName,
    payload: jsonValue,
  }),
  /** `seq`: the message's sequence number in its channel (docs/realtime.md). */
  response: z.strictObject({ seq: z.int().min(1) }),
  errors: ['REALTIME_CHANNEL_NOT_DECLARED', 'REALTIME_MESSAGE_TOO_LARGE'],
});
