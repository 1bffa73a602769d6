// The background probes behind readyz: a failed probe, or a last success too old (a probe that
// hangs), answers not ready with the check's reason; a probe that succeeds again answers ready.
import { afterEach, describe, expect, it } from 'vitest';
import { ReadinessProbes } from '../../src/serve/readiness.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('readiness probes', () => {
  let probes: ReadinessProbes | undefined;
  afterEach(async () => {
    await probes?.close();
  });

  it('is not ready once the last success is older than the bound, while a probe hangs', async () => {
    let now = 0;
    let calls = 0;
    probes = new ReadinessProbes(
      [
        {
          reason: 'central store unreachable',
          // The first probe answers; every later one never settles.
          probe: () => (++calls === 1 ? Promise.resolve() : new Promise(() => {})),
        },
      ],
      { intervalMs: 10, timeoutMs: 60_000, maxAgeMs: 3_000, now: () => now },
    );
    await probes.start();
    expect(probes.notReady()).toBeUndefined();
    await sleep(50);
    expect(calls).toBe(2);
    now = 2_999;
    expect(probes.notReady()).toBeUndefined();
    now = 3_001;
    expect(probes.notReady()).toBe('central store unreachable');
  });

  it('answers the first failing reason, and ready again once the probe succeeds', async () => {
    let storeUp = true;
    let storageUp = false;
    probes = new ReadinessProbes(
      [
        {
          reason: 'central store unreachable',
          probe: async () => {
            if (!storeUp) throw new Error('refused');
          },
        },
        {
          reason: 'file storage unreachable',
          probe: async () => {
            if (!storageUp) throw new Error('refused');
          },
        },
      ],
      { intervalMs: 10 },
    );
    await probes.start();
    expect(probes.notReady()).toBe('file storage unreachable');
    storeUp = false;
    await sleep(50);
    expect(probes.notReady()).toBe('central store unreachable');
    storeUp = true;
    storageUp = true;
    await sleep(50);
    expect(probes.notReady()).toBeUndefined();
  });

  it('counts a probe slower than its timeout as failed', async () => {
    probes = new ReadinessProbes(
      [{ reason: 'file storage unreachable', probe: () => new Promise(() => {}) }],
      { timeoutMs: 20 },
    );
    await probes.start();
    expect(probes.notReady()).toBe('file storage unreachable');
  });
});
