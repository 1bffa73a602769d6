// The dashboard's Push notifications, in the browser.
import {
  fill,
  get,
  localTime,
  row,
  type SectionScript,
} from '../pages/dashboard/dashboard-client-kit.ts';

interface PushDelivery {
  readonly receivedAt: string;
  readonly userId: string | null;
  readonly payload: { title?: unknown; body?: unknown; url?: unknown; tag?: unknown } | string;
}

async function loadPush(api: { readonly deliveries: string }): Promise<void> {
  const { deliveries } = await get<{ deliveries: PushDelivery[] }>(api.deliveries, {
    limit: '50',
  });
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  fill(
    'push',
    deliveries.map((d) => {
      const p = typeof d.payload === 'string' ? { title: d.payload } : d.payload;
      return row([
        localTime(d.receivedAt),
        d.userId ?? '',
        text(p.title),
        text(p.body),
        text(p.url),
        text(p.tag),
      ]);
    }),
    'No notification received yet: subscribe a device, then send from a Function.',
    6,
  );
}

export default { open: loadPush, refresh: loadPush } satisfies SectionScript<'deliveries'>;
