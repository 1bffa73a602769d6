import type { RuleContext } from '../context.ts';

/** Spec 2.7: unique queue names; each consumer a declared system Function. */
export function checkQueues(ctx: RuleContext): void {
  const seen = new Map<string, number>();
  for (const [i, queue] of ctx.manifest.queues.entries()) {
    const first = seen.get(queue.name);
    if (first !== undefined) {
      ctx.report(
        'QUEUE_NAME_DUPLICATE',
        ['queues', i, 'name'],
        `Queue name "${queue.name}" is already used by queues[${first}]; queue names must be unique.`,
      );
    } else {
      seen.set(queue.name, i);
    }
    ctx.requireSystemFunction(
      ['queues', i, 'function'],
      queue.function,
      'QUEUE_CONSUMER_NOT_SYSTEM',
      `Consumer of queue "${queue.name}"`,
    );
  }
}
