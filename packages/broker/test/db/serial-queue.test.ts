import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../../src/db/serial-queue.ts';

/** A task that records its start and finishes when `release` is called. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    task: async () => {
      log.push(name);
      await done;
      return name;
    },
    release,
  };
}

describe('SerialQueue', () => {
  it('runs one task at a time, first in first out, past a failure', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const first = gated(log, 'a');
    const a = queue.run(first.task);
    const b = queue.run(async () => {
      log.push('b');
      throw new Error('b failed');
    });
    const c = queue.run(async () => {
      log.push('c');
      return 'c';
    });
    await Promise.resolve();
    expect(log).toEqual(['a']);
    expect(queue.size).toBe(3);
    first.release();
    await expect(a).resolves.toBe('a');
    await expect(b).rejects.toThrow('b failed');
    await expect(c).resolves.toBe('c');
    expect(log).toEqual(['a', 'b', 'c']);
    expect(queue.size).toBe(0);
  });

  it('starts a task of the ahead lane after the running one, before the waiting ones', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const running = gated(log, 'running');
    const tasks: Promise<unknown>[] = [queue.run(running.task)];
    const step = (name: string) => async () => {
      log.push(name);
    };
    tasks.push(queue.run(step('normal 1')), queue.run(step('normal 2')));
    tasks.push(queue.run(step('ahead 1'), 'ahead'), queue.run(step('ahead 2'), 'ahead'));
    await Promise.resolve();
    expect(log).toEqual(['running']);
    running.release();
    await Promise.all(tasks);
    expect(log).toEqual(['running', 'ahead 1', 'ahead 2', 'normal 1', 'normal 2']);
  });
});
