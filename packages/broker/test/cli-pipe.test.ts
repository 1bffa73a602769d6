// The real `platform` executable whose reader closes its output pipe before it prints
// (`platform --help | head -0`): it exits 0 without a stack trace. `platform outbox` against a
// running platform dev is in e2e/cli-dev.test.ts.
import { describe, expect, it } from 'vitest';
import { platformWithClosedStdout } from './e2e/helpers.ts';

describe('a closed output pipe', () => {
  it('ends platform --help quietly with exit code 0', async () => {
    expect(await platformWithClosedStdout(['--help'])).toEqual({ code: 0, stderr: '' });
  });
});
