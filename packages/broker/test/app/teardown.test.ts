import { describe, expect, it } from 'vitest';
import { Teardown } from '../../src/app/teardown.ts';

describe('a teardown list', () => {
  it('closes what was opened in reverse order, once', async () => {
    const closed: string[] = [];
    const teardown = new Teardown();
    teardown.add(() => {
      closed.push('database');
    });
    teardown.add(async () => {
      closed.push('server');
    });
    await Promise.all([teardown.close(), teardown.close()]);
    await teardown.close();
    expect(closed).toEqual(['server', 'database']);
  });

  it('closes what a failed start opened and rethrows the start error', async () => {
    const closed: string[] = [];
    const reported: unknown[] = [];
    const teardown = new Teardown((error) => reported.push(error));
    const failure = new Error('step three failed');
    await expect(
      teardown.run(async () => {
        teardown.add(() => {
          closed.push('one');
        });
        teardown.add(() => {
          throw new Error('two does not close');
        });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(closed).toEqual(['one']);
    expect(reported).toMatchObject([{ message: 'two does not close' }]);
  });

  it('runs every step even when some fail, then throws their errors', async () => {
    const closed: string[] = [];
    const teardown = new Teardown();
    teardown.add(() => {
      closed.push('first');
    });
    teardown.add(() => {
      throw new Error('a');
    });
    teardown.add(() => {
      throw new Error('b');
    });
    await expect(teardown.close()).rejects.toMatchObject({
      errors: [{ message: 'b' }, { message: 'a' }],
    });
    expect(closed).toEqual(['first']);
  });
});
