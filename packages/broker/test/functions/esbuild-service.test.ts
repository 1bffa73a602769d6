// esbuild's service process holds hundreds of megabytes after bundling: it is stopped once the
// builds are done, and a later build starts it again.
import { describe, expect, it } from 'vitest';
import { buildThenIdle, ESBUILD_IDLE_MS } from '../../src/functions/esbuild-service.ts';
import { processesOf } from '../helpers/processes.ts';

const options = {
  stdin: { contents: 'export const answer: number = 42;', loader: 'ts' as const },
  bundle: true,
  write: false,
  format: 'esm' as const,
};
const services = () => processesOf(process.pid, 'esbuild').length;

describe('the esbuild service', () => {
  it('stops when idle, and builds again after', async () => {
    const [first] = (await buildThenIdle(options)).outputFiles ?? [];
    expect(first?.text).toContain('42');
    expect(services()).toBe(1);
    await expect.poll(services, { timeout: ESBUILD_IDLE_MS + 5000 }).toBe(0);
    const [again] = (await buildThenIdle(options)).outputFiles ?? [];
    expect(again?.text).toBe(first?.text);
    // Builds in a row keep one service, stopped only after the last.
    await Promise.all([buildThenIdle(options), buildThenIdle(options)]);
    expect(services()).toBe(1);
    await expect.poll(services, { timeout: ESBUILD_IDLE_MS + 5000 }).toBe(0);
  });
});
