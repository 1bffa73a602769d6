// An app bundle that uses the whole public surface of @platform/browser/realtime.
import { createRealtime } from '@platform/browser/realtime';

export async function main(): Promise<void> {
  const realtime = createRealtime({ appUrl: location.origin });
  realtime.onGap((gap) => console.log(gap));
  realtime.onStatus((status) => console.log(status));
  realtime.onError((error) => console.log(error.code));
  const room = await realtime.channel('room:1', { presence: { name: 'Ada' } });
  room.on('moved', (payload, meta) => console.log(payload, meta.seq));
  room.onPresence((members) => console.log(members.length));
  await room.send('moved', { x: 1 });
  await room.track({ name: 'Ada', typing: true });
  const sub = await realtime.changes('todos', (change) => console.log(change.op), {
    filter: { done: false },
  });
  await sub.unsubscribe();
  await room.leave();
  realtime.close();
}
