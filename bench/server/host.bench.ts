import { defineFunction, runInvocation, s } from '@platform/server';
import { createMockBroker } from '@platform/server/testing';
import { Bench } from 'tinybench';

/**
 * Invocation overhead of the function host: parse the invocation and the input, build the
 * context, run a handler that returns its input, serialise `{ result }`; against calling the
 * same handler directly, in the same run.
 */
export async function benchHost(time = 1000) {
  const handler = (ctx: { input: { id: string; n: number } }) => ctx.input;
  const fn = defineFunction({ input: s.object({ id: s.string(), n: s.number() }), handler });
  const broker = createMockBroker();
  const invocation = broker.invocation({ input: { id: 'a', n: 1 } });
  const direct = { input: { id: 'a', n: 1 } };
  const bench = new Bench({ time });
  bench
    .add('handler called directly', () => {
      handler(direct);
    })
    .add('runInvocation (host)', async () => {
      const response = await runInvocation(fn, invocation);
      await response.text();
    });
  await bench.run();
  const [base, host] = bench.tasks.map((task) => {
    const result = task.result;
    if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
    return { name: task.name, opsPerSecond: result.throughput.mean, meanMs: result.latency.mean };
  });
  if (!base || !host) throw new Error('benchmark tasks missing');
  return {
    base,
    host,
    ratio: base.opsPerSecond / host.opsPerSecond,
    overheadMicroseconds: (host.meanMs - base.meanMs) * 1000,
  };
}
