import { type FunctionAccess, invocationSchema } from '@platform/schema/contract';
import { describe, expect, it } from 'vitest';
import type { FunctionProcess, HostRequest } from '../../src/functions/function-process.ts';
import { InvocationTokens } from '../../src/functions/invocation-tokens.ts';
import { FunctionInvoker } from '../../src/functions/invoker.ts';
import { anonymousCaller, systemCaller, userCaller } from '../../src/kernel/caller.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

const declared = {
  secrets: ['API_KEY'],
  searches: { docs: { fullText: true, model: 'm@1', dimensions: 3, filters: ['teamId'] } },
  emailAliases: ['support'],
};

/** A process that records what the invoker posts and answers `{ result: null }`. */
function recordingProcess(sent: HostRequest[]): FunctionProcess {
  return {
    request: async (request: HostRequest) => {
      sent.push(request);
      return Response.json({ result: null });
    },
  } as unknown as FunctionProcess;
}

const newInvoker = () => {
  const tokens = new InvocationTokens();
  const invoker = new FunctionInvoker({
    tokens,
    brokerUrl: 'http://127.0.0.1:4310',
    sdkVersion: '2.6.0',
    environment: 'development',
    declared,
  });
  return { tokens, invoker };
};

describe('FunctionInvoker', () => {
  it('carries the file grant of a job attempt in its invocation token, never in the invocation', async () => {
    const sent: HostRequest[] = [];
    const { tokens, invoker } = newInvoker();
    invoker.register({ name: 'consume', access: 'system', process: recordingProcess(sent) });
    const fileGrant = {
      files: [{ id: 'file_0123', generation: 2 }],
      expiresAt: new Date('2025-01-29T12:00:00.000Z'),
    };
    const call = { input: {}, caller: systemCaller(), origin: 'platform' } as const;
    await invoker.call('consume', { ...call, requestId: 'req_granted', fileGrant });
    await invoker.call('consume', { ...call, requestId: 'req_plain' });
    const [granted, plain] = sent.map((request) =>
      invocationSchema.parse(JSON.parse(String(request.body))),
    );
    expect(tokens.verify(granted?.broker.token)?.fileGrant).toEqual(fileGrant);
    expect(tokens.verify(plain?.broker.token)?.fileGrant).toBeUndefined();
    expect(String(sent[0]?.body)).not.toContain('file_0123');
  });

  it('posts a whole invocation per call, with the per-Function members of each Function', async () => {
    const sent: HostRequest[] = [];
    const { tokens, invoker } = newInvoker();
    const register = (name: string, access: FunctionAccess) =>
      invoker.register({ name, access, process: recordingProcess(sent) });
    register('save', 'user');
    register('list', 'public');
    const user = userCaller(ALICE);
    await invoker.call('save', {
      requestId: 'req_1',
      input: { a: [1, 'x"y'] },
      caller: user,
      origin: 'browser',
    });
    await invoker.call('list', {
      requestId: 'req_2',
      input: undefined,
      caller: anonymousCaller,
      origin: 'route',
      http: { method: 'GET', pathname: '/l', params: {}, query: { q: ['1', '2'] } },
    });
    await invoker.call('save', {
      requestId: 'req_3',
      input: 'again',
      caller: user,
      origin: 'browser',
    });

    const invocations = sent.map((request) =>
      invocationSchema.parse(JSON.parse(String(request.body))),
    );
    expect(invocations.map((i) => [i.function, i.requestId, i.input])).toEqual([
      ['save', 'req_1', { a: [1, 'x"y'] }],
      ['list', 'req_2', null],
      ['save', 'req_3', 'again'],
    ]);
    for (const invocation of invocations) {
      expect(invocation).toMatchObject({
        sdkVersion: '2.6.0',
        environment: 'development',
        integration: null,
        job: null,
        declared,
        broker: { url: 'http://127.0.0.1:4310' },
      });
      // Each call has its own live token, granted to that call only.
      expect(tokens.verify(invocation.broker.token)?.requestId).toBe(invocation.requestId);
    }
    expect(invocations[0]?.user).toEqual({ id: ALICE });
    expect(invocations[1]).toMatchObject({ user: null, http: { query: { q: ['1', '2'] } } });
    expect(new Set(invocations.map((i) => i.broker.token)).size).toBe(3);
  });
});
