import { errorCatalog } from '@platform/errors';
import { describe, expect, it } from 'vitest';
import {
  browserContract,
  commonRouteErrors,
  compareVersions,
  contract,
  featureSince,
  hostContract,
  invocationSchema,
  isSdkVersion,
  runtimeContract,
  supports,
} from '../../src/contract/index.ts';
import {
  browserRoutes,
  contextRoutes,
  fillPath,
  hostRoutes,
  pushRoutes,
  RUNTIME_PREFIX,
} from '../../src/routes.ts';

describe('runtime contract', () => {
  it('pairs every path-table route with schemas, and restates no path', () => {
    expect(Object.keys(runtimeContract).sort()).toEqual(Object.keys(contextRoutes).sort());
    for (const [name, route] of Object.entries(runtimeContract)) {
      const spec = contextRoutes[name as keyof typeof contextRoutes];
      expect(route).toMatchObject({
        name,
        method: spec.method,
        path: spec.path,
        since: spec.since,
      });
      expect(route.path.startsWith(`${RUNTIME_PREFIX}/`)).toBe(true);
      expect(typeof route.request.safeParse).toBe('function');
    }
    expect(Object.keys(hostContract).sort()).toEqual(Object.keys(hostRoutes).sort());
    expect(Object.keys(browserContract).every((k) => k in browserRoutes || k in pushRoutes)).toBe(
      true,
    );
    expect(contract.runtime).toBe(runtimeContract);
  });

  it('has unique method+path pairs and only catalog error codes', () => {
    const keys = Object.values(runtimeContract).map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of [
      ...Object.values(runtimeContract),
      ...Object.values(hostContract),
      ...Object.values(browserContract),
    ]) {
      for (const code of route.errors) expect(Object.hasOwn(errorCatalog, code), code).toBe(true);
    }
    for (const code of commonRouteErrors) expect(Object.hasOwn(errorCatalog, code)).toBe(true);
  });

  it('versions routes per spec 9', () => {
    expect(runtimeContract.dataSearch.since).toBe(featureSince.search);
    expect(runtimeContract.integrationEmit.since).toBe('2.6.0');
    expect(runtimeContract.integrationsCall.since).toBe('2.2.0');
    expect(featureSince).toMatchObject({
      http: '2.3.0',
      enqueueFiles: '2.4.0',
      integration: '2.6.0',
    });
    expect(supports('2.3.0', '2.6.0')).toBe(false);
    expect(supports('2.6.0', '2.6.0')).toBe(true);
    expect(supports('2.10.0', '2.6.0')).toBe(true);
    expect(compareVersions('2.6.0-rc.1', '2.6.0')).toBe(0);
    expect(isSdkVersion('2.6')).toBe(false);
    expect(() => compareVersions('x', '2.0.0')).toThrow(TypeError);
  });

  it('request schemas are strict and validate shapes', () => {
    expect(
      runtimeContract.jobsEnqueue.request.safeParse({ payload: {}, idempotencyKey: 'k' }).success,
    ).toBe(true);
    expect(
      runtimeContract.jobsEnqueue.request.safeParse({ payload: {}, idempotencyKey: 'k', extra: 1 })
        .success,
    ).toBe(false);
    expect(
      runtimeContract.jobsEnqueue.request.safeParse({ payload: [], idempotencyKey: 'k' }).success,
    ).toBe(false);
    expect(
      runtimeContract.filesUpload.request.safeParse({
        data: 'not base64!',
        name: 'a',
        contentType: 'b',
      }).success,
    ).toBe(false);
    expect(
      runtimeContract.emailSend.request.safeParse({ from: 'a', to: 'b', subject: 'c' }).success,
    ).toBe(false);
    expect(
      runtimeContract.aiGenerateText.request.safeParse({
        prompt: 'p',
        attachments: [{ type: 'url', url: 'x' }],
      }).success,
    ).toBe(false);
    expect(runtimeContract.aiStreamText.responseKind).toBe('text-frames');
    expect(browserContract.functionStream.responseKind).toBe('byte-stream');
  });

  it('describes the invocation the broker posts to the host', () => {
    const invocation = {
      requestId: 'r',
      function: 'f',
      sdkVersion: '2.6.0',
      environment: 'production',
      input: {},
      user: null,
      job: null,
      http: null,
      integration: null,
      broker: { url: 'http://127.0.0.1:1', token: 't' },
      declared: { secrets: [], searches: {}, emailAliases: [] },
    };
    expect(invocationSchema.safeParse(invocation).success).toBe(true);
    expect(invocationSchema.safeParse({ ...invocation, sdkVersion: 'latest' }).success).toBe(false);
    const { input: _input, ...withoutInput } = invocation;
    expect(invocationSchema.safeParse(withoutInput).success).toBe(false);
    for (const url of ['127.0.0.1:1', 'ftp://host', 'http://host/path', 'http://user@host']) {
      const broker = { url, token: 't' };
      expect(invocationSchema.safeParse({ ...invocation, broker }).success, url).toBe(false);
    }
    expect(
      invocationSchema.safeParse({
        ...invocation,
        broker: { url: 'https://[::1]:8443', token: 't' },
      }).success,
    ).toBe(true);
    expect(
      invocationSchema.safeParse({
        ...invocation,
        integration: { connectionId: 'c', trigger: 'poll' },
      }).success,
    ).toBe(false);
  });

  it('fills path parameters with encoding', () => {
    expect(fillPath(contextRoutes.dataList.path, { table: 'a b' })).toBe(
      '/_platform/runtime/data/a%20b/list',
    );
  });
});
