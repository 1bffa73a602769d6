import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerSdk } from '../../src/functions/sdk.ts';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

let env: Awaited<ReturnType<typeof brokerFor>>;

// An app pinned older than the broker's own SDK copy: the copy serves it, but the Function must
// report its pin (spec 9), both when read inside the handler and when captured at module load.
beforeAll(async () => {
  env = await brokerFor(
    {
      'functions/version.ts': `
import { defineFunction, PLATFORM_SDK_VERSION, s } from '@platform/server';
const atLoad = PLATFORM_SDK_VERSION;
export default defineFunction({
  input: s.object({}),
  handler: () => ({ sdk: PLATFORM_SDK_VERSION, atLoad }),
});
`,
    },
    { sdkVersion: '2.3.0' },
  );
  await env.broker.addFunction({
    name: 'version',
    entrypoint: 'functions/version.ts',
    access: 'public',
  });
});
afterAll(() => env?.cleanup());

describe('PLATFORM_SDK_VERSION in a Function served by the broker', () => {
  it('is the version platform.yaml pins, not the version of the SDK copy serving it', async () => {
    expect(brokerSdk().version).not.toBe('2.3.0');
    const response = await callOverHttp(env.broker, 'version', {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: { sdk: '2.3.0', atLoad: '2.3.0' } });
  });
});
