/**
 * `@platform/browser/realtime`: broadcast, presence and database changes of the app over one
 * WebSocket (docs/realtime.md). A subpath, so apps without realtime do not carry it.
 *
 * @packageDocumentation
 */
export { createRealtime } from './create-realtime.ts';
export type {
  PlatformRealtime,
  PresenceMember,
  RealtimeChannel,
  RealtimeGap,
  RealtimeJson,
  RealtimeOptions,
  RealtimeSender,
  RealtimeStatus,
  RealtimeSubscription,
  RowChange,
} from './types.ts';
