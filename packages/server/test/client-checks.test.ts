import { limits } from '@platform/schema';
import { describe, expect, it } from 'vitest';
import type { FileRef } from '../src/index.ts';
import { memoryRoutes } from '../src/testing/memory-routes.ts';
import { mswBroker } from './helpers.ts';

// Every client-side rule throws its exact code without a single request reaching the network.
const net = mswBroker();
const declared = {
  secrets: ['API_KEY'],
  emailAliases: ['support'],
  searches: { docs: { fullText: true, model: 'embed@1', dimensions: 3, filters: ['teamId'] } },
};
const ctx = (sdkVersion = '2.6.0') => {
  net.use({ secrets: { API_KEY: 'k' } });
  return net.context({
    declared,
    sdkVersion,
    integration: { connectionId: 'c1', trigger: 'sync' },
  }).context;
};

async function rejects(promise: Promise<unknown>, code: string) {
  await expect(promise).rejects.toMatchObject({ name: 'PlatformError', code });
  expect(net.sent()).toBe(0);
}

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
const ascii = (t: string) => [...t].map((c) => c.charCodeAt(0));
// GIF89a, 1x1, no global table, two image descriptors: animated.
const frame = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4c, 0x01, 0];
const animatedGif = new Uint8Array([
  ...ascii('GIF89a'),
  1,
  0,
  1,
  0,
  0,
  0,
  0,
  ...frame,
  ...frame,
  0x3b,
]);
const stillGif = new Uint8Array([...ascii('GIF89a'), 1, 0, 1, 0, 0, 0, 0, ...frame, 0x3b]);

describe('data.search options (spec 2.5)', () => {
  const search = (options: object, name = 'docs') =>
    ctx().data.search(name, options as Parameters<ReturnType<typeof ctx>['data']['search']>[1]);
  const vector = [0.1, 0.2, 0.3];
  it.each([
    ['undeclared search', { mode: 'fullText', query: 'a' }, 'SEARCH_NOT_DECLARED', 'nope'],
    ['unknown mode', { mode: 'fuzzy', query: 'a' }, 'SEARCH_INPUT_INVALID'],
    ['missing query', { mode: 'fullText' }, 'SEARCH_INPUT_INVALID'],
    [
      'blank query',
      { mode: 'hybrid', query: '   ', vector, model: 'embed@1' },
      'SEARCH_INPUT_INVALID',
    ],
    [
      'query too long',
      { mode: 'fullText', query: 'x'.repeat(limits.search.queryMaxLength + 1) },
      'SEARCH_INPUT_INVALID',
    ],
    ['missing vector', { mode: 'vector', model: 'embed@1' }, 'SEARCH_INPUT_INVALID'],
    [
      'non-finite vector',
      { mode: 'vector', vector: [1, Number.NaN, 0], model: 'embed@1' },
      'SEARCH_INPUT_INVALID',
    ],
    [
      'float32 overflow',
      { mode: 'vector', vector: [1e39, 0, 0], model: 'embed@1' },
      'SEARCH_INPUT_INVALID',
    ],
    ['zero norm', { mode: 'vector', vector: [0, 0, 0], model: 'embed@1' }, 'SEARCH_INPUT_INVALID'],
    [
      'wrong dimensions',
      { mode: 'vector', vector: [1, 2], model: 'embed@1' },
      'SEARCH_DIMENSION_MISMATCH',
    ],
    ['missing model', { mode: 'vector', vector }, 'SEARCH_INPUT_INVALID'],
    ['wrong model', { mode: 'vector', vector, model: 'embed@2' }, 'SEARCH_MODEL_MISMATCH'],
    [
      'undeclared filter',
      { mode: 'fullText', query: 'a', where: { owner: 'x' } },
      'SEARCH_INPUT_INVALID',
    ],
    [
      'non-scalar filter',
      { mode: 'fullText', query: 'a', where: { teamId: [1] } },
      'SEARCH_INPUT_INVALID',
    ],
    ['limit 0', { mode: 'fullText', query: 'a', limit: 0 }, 'SEARCH_INPUT_INVALID'],
    [
      'limit 51',
      { mode: 'fullText', query: 'a', limit: limits.search.limitMax + 1 },
      'SEARCH_INPUT_INVALID',
    ],
    ['limit 1.5', { mode: 'fullText', query: 'a', limit: 1.5 }, 'SEARCH_INPUT_INVALID'],
    ['vector in fullText mode', { mode: 'fullText', query: 'a', vector }, 'SEARCH_INPUT_INVALID'],
    [
      'query in vector mode',
      { mode: 'vector', query: 'a', vector, model: 'embed@1' },
      'SEARCH_INPUT_INVALID',
    ],
    [
      'model in fullText mode',
      { mode: 'fullText', query: 'a', model: 'embed@1' },
      'SEARCH_INPUT_INVALID',
    ],
    ['unknown option', { mode: 'fullText', query: 'a', offset: 3 }, 'SEARCH_INPUT_INVALID'],
  ])('%s', async (_label, options, code, name = 'docs') => {
    await rejects(search(options, name), code);
  });

  it('is refused before SDK 2.4.0', async () => {
    await rejects(
      ctx('2.3.0').data.search('docs', { mode: 'fullText', query: 'a' }),
      'SDK_VERSION_UNSUPPORTED',
    );
  });
});

describe('AI attachments (spec 2.6, section 8)', () => {
  const generate = (attachments: unknown[]) =>
    ctx().ai.generateText({ prompt: 'Read this', attachments: attachments as never });
  const image = (data: Uint8Array, contentType = 'image/png') => ({
    type: 'image',
    data,
    contentType,
  });
  const big = (size: number) => {
    const data = new Uint8Array(size);
    data.set(png);
    return data;
  };
  it.each([
    ['more than four attachments', () => Array.from({ length: 5 }, () => image(png))],
    [
      'remote image URL as data',
      () => [{ type: 'image', data: 'https://x.test/a.png', contentType: 'image/png' }],
    ],
    ['remote URL as a file', () => [{ type: 'file', file: 'https://x.test/a.pdf' }]],
    ['unknown attachment type', () => [{ type: 'url', url: 'https://x.test' }]],
    ['unsupported image type', () => [image(png, 'image/svg+xml')]],
    ['bytes not matching the type', () => [image(png, 'image/jpeg')]],
    ['animated GIF', () => [image(animatedGif, 'image/gif')]],
    ['image over 15 MiB', () => [image(big(limits.ai.imageMaxBytes + 1))]],
    ['total over 20 MiB', () => [image(big(limits.ai.imageMaxBytes)), image(big(6 * 1024 * 1024))]],
    ['bad detail', () => [{ type: 'file', file: 'file_1', detail: 'high' }]],
  ])('%s gives AI_INPUT_INVALID', async (_label, attachments) => {
    await rejects(generate(attachments()), 'AI_INPUT_INVALID');
  });

  it('accepts a still GIF and a managed file (request sent)', async () => {
    // The in-memory broker checks the managed file's bytes as the broker does: a still GIF too.
    net.use({ files: { file_1: { data: stillGif, name: 'still.gif', contentType: 'image/gif' } } });
    const c = net.context().context;
    const result = await c.ai.generateText({
      prompt: 'p',
      attachments: [
        image(stillGif, 'image/gif') as never,
        { type: 'file', file: 'file_1' as FileRef },
      ],
    });
    expect(result.text).toContain('with 2 attachments');
    expect(net.sent()).toBe(1);
  });
});

describe('jobs.enqueue options (spec 2.7)', () => {
  const enqueue = (payload: unknown, options: unknown, version?: string) =>
    ctx(version).jobs.enqueue('emails', payload as never, options as never);
  it.each([
    ['missing options', {}, undefined, 'INVALID_INPUT'],
    ['missing idempotencyKey', {}, { delaySeconds: 1 }, 'INVALID_INPUT'],
    ['payload not an object', [1, 2], { idempotencyKey: 'k' }, 'INVALID_INPUT'],
    ['payload null', null, { idempotencyKey: 'k' }, 'INVALID_INPUT'],
    [
      'payload over 64 KiB',
      { s: 'x'.repeat(limits.jobs.payloadMaxBytes) },
      { idempotencyKey: 'k' },
      'LIMIT_EXCEEDED',
    ],
    [
      'delay over 7 days',
      {},
      { idempotencyKey: 'k', delaySeconds: limits.jobs.delayMaxSeconds + 1 },
      'LIMIT_EXCEEDED',
    ],
    ['negative delay', {}, { idempotencyKey: 'k', delaySeconds: -1 }, 'INVALID_INPUT'],
    ['no files', {}, { idempotencyKey: 'k', files: { read: [] } }, 'LIMIT_EXCEEDED'],
    [
      '17 files',
      {},
      { idempotencyKey: 'k', files: { read: Array.from({ length: 17 }, (_, i) => `f${i}`) } },
      'LIMIT_EXCEEDED',
    ],
  ])('%s', async (_label, payload, options, code) => {
    await rejects(enqueue(payload, options), code);
  });

  it('refuses a file grant before SDK 2.4.0', async () => {
    await rejects(
      enqueue({}, { idempotencyKey: 'k', files: { read: ['f1'] } }, '2.3.0'),
      'SDK_VERSION_UNSUPPORTED',
    );
  });

  // timeoutMs bounds only the producer's request (spec 2.7); a timer takes at most 2^31 - 1 ms.
  it.each([
    ['zero', 0, 'INVALID_INPUT'],
    ['negative', -1, 'INVALID_INPUT'],
    ['fractional', 1.5, 'INVALID_INPUT'],
    ['NaN', Number.NaN, 'INVALID_INPUT'],
    ['Infinity', Number.POSITIVE_INFINITY, 'INVALID_INPUT'],
    ['a string', '100', 'INVALID_INPUT'],
    ['one past the longest timer', limits.jobs.enqueueTimeoutMaxMs + 1, 'LIMIT_EXCEEDED'],
  ])('refuses timeoutMs %s before sending', async (_label, timeoutMs, code) => {
    await rejects(enqueue({}, { idempotencyKey: 'k', timeoutMs }), code);
  });

  it('accepts the longest timeoutMs: the request is sent and answered, not cut after 1 ms', async () => {
    net.use({
      routes: {
        jobsEnqueue: async (request) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return memoryRoutes.jobsEnqueue(request);
        },
      },
    });
    const c = net.context().context;
    const job = await c.jobs.enqueue(
      'emails',
      {},
      { idempotencyKey: 'k', timeoutMs: limits.jobs.enqueueTimeoutMaxMs },
    );
    expect(job).toMatchObject({ queue: 'emails' });
    expect(net.sent()).toBe(1);
  });

  it('answers TIMEOUT when the broker takes longer than timeoutMs, and not before', async () => {
    net.use({
      routes: {
        jobsEnqueue: async (request) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return memoryRoutes.jobsEnqueue(request);
        },
      },
    });
    const c = net.context().context;
    const started = Date.now();
    await expect(
      c.jobs.enqueue('emails', {}, { idempotencyKey: 'slow', timeoutMs: 50 }),
    ).rejects.toMatchObject({ name: 'PlatformError', code: 'TIMEOUT' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const job = await c.jobs.enqueue('emails', {}, { idempotencyKey: 'slow', timeoutMs: 5000 });
    expect(job).toMatchObject({ queue: 'emails' });
  });
});

describe('integration.emit (spec 2.11)', () => {
  const emit = (event: unknown) => ctx().integration!.emit(event as never);
  it.each([
    [
      'data over 64 KiB',
      { type: 'a.b', id: '1', data: { s: 'x'.repeat(limits.integration.eventDataMaxBytes) } },
      'LIMIT_EXCEEDED',
    ],
    ['data not an object', { type: 'a.b', id: '1', data: [1] }, 'INTEGRATION_EVENT_INVALID'],
    ['bad type', { type: 'Invoice', id: '1', data: {} }, 'INTEGRATION_EVENT_INVALID'],
    ['missing id', { type: 'a.b', data: {} }, 'INTEGRATION_EVENT_INVALID'],
  ])('%s', async (_label, event, code) => {
    await rejects(emit(event), code);
  });
});

describe('declared names and versions', () => {
  it('secrets.get of an undeclared name gives SECRET_NOT_DECLARED', async () => {
    await rejects(ctx().secrets.get('OTHER'), 'SECRET_NOT_DECLARED');
    await rejects(ctx().secrets.require('OTHER'), 'SECRET_NOT_DECLARED');
  });
  it('email from an undeclared alias gives EMAIL_ALIAS_NOT_DECLARED', async () => {
    await rejects(
      ctx().email.send({ from: 'ceo', to: 'a@b.test', subject: 's', text: 't' }),
      'EMAIL_ALIAS_NOT_DECLARED',
    );
  });
  it('a Function pinned to 2.3.0 using the 2.6.0 integration member gets SDK_VERSION_UNSUPPORTED', () => {
    expect(() => ctx('2.3.0').integration).toThrow(
      expect.objectContaining({ code: 'SDK_VERSION_UNSUPPORTED' }),
    );
    expect(() => ctx('2.2.0').http).toThrow(
      expect.objectContaining({ code: 'SDK_VERSION_UNSUPPORTED' }),
    );
    expect(net.sent()).toBe(0);
  });
  it('integrations.use before SDK 2.2.0 gives SDK_VERSION_UNSUPPORTED', async () => {
    await rejects(
      ctx('2.1.0').integrations.use('crm').call('contacts.list', {}),
      'SDK_VERSION_UNSUPPORTED',
    );
  });
});
