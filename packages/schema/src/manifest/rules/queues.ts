import type { RuleContext } from '../context.ts';
import { firstDuplicates } from './duplicates.ts';

/** Spec 2.7: unique queue names; each consumer a declared system Function. */
export function checkQueues(ctx: RuleContext): void {
  const { queues } = ctx.manifest;
  for (const [i, first] of firstDuplicates(queues, (queue) => queue.name)) {
    ctx.report(
      'QUEUE_NAME_DUPLICATE',
      ['queues', i, 'name'],
      `Queue name "${queues[i]!.name}" is already used by queues[${first}]; queue names must be unique.`,
    );
  }
  for (const [i, queue] of queues.entries()) {
    ctx.requireSystemFunction(
      ['queues', i, 'function'],
      queue.function,
      'QUEUE_CONSUMER_NOT_SYSTEM',
      `Consumer of queue "${queue.name}"`,
    );
  }
}
