// Object storage that stops answering (s3rver on loopback, stopped and started again by the
// test): uploads and replaces answer the retryable STORAGE_UNAVAILABLE and write no row, reads
// answer it too, a delete still happens and the sweep removes its bytes once storage is back.

import { fileRoutes, fillPath } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userCaller } from '../../src/kernel/caller.ts';
import { brokerFor } from '../helpers/broker.ts';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
let s3: S3TestServer;
let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  s3 = await startS3Server();
  env = await brokerFor({}, { fileStorage: { kind: 's3', ...s3.settings } });
});
afterAll(async () => {
  await env?.cleanup();
  await s3?.close();
});

const url = (path: string) => `${env.broker.server.url}${path}`;
const upload = (text: string) =>
  fetch(`${url(fileRoutes.upload.path)}?name=a.txt`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-test-user': ALICE },
    body: text,
  });
const download = (ref: string) =>
  fetch(url(fillPath(fileRoutes.download.path, { ref })), { headers: { 'x-test-user': ALICE } });
const fileRows = async () =>
  (await env.broker.db.query<{ n: number }>('select count(*)::int as n from platform.files'))
    .rows[0]?.n;

describe('files in object storage that goes down', () => {
  it('stores and serves files over HTTP while the storage answers', async () => {
    const created = await upload('hello object storage');
    expect(created.status).toBe(201);
    const { file } = (await created.json()) as { file: { ref: string; size: number } };
    const read = await download(file.ref);
    expect(read.headers.get('content-length')).toBe(String(file.size));
    expect(await read.text()).toBe('hello object storage');
  });

  it('answers STORAGE_UNAVAILABLE and writes no row while it is down', async () => {
    const created = (await (await upload('before the outage')).json()) as {
      file: { ref: string };
    };
    const ref = created.file.ref;
    const rowsBefore = await fileRows();
    await s3.stop();
    try {
      const failed = await upload('during the outage');
      expect(failed.status).toBe(503);
      const body = (await failed.json()) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ code: 'STORAGE_UNAVAILABLE', retryable: true });
      // Neither the endpoint nor the credentials reach the caller.
      expect(JSON.stringify(body)).not.toContain('127.0.0.1');
      expect(JSON.stringify(body)).not.toContain(s3.settings.secretAccessKey);
      expect(await fileRows()).toBe(rowsBefore);

      const alice = userCaller(ALICE);
      await expect(
        env.broker.files.replace(alice, ref, { data: new TextEncoder().encode('new') }),
      ).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE', retryable: true });
      expect((await env.broker.files.info(alice, ref)).generation).toBe(1);
      const unread = await download(ref);
      expect(unread.status).toBe(503);
      expect(await unread.json()).toMatchObject({ error: { code: 'STORAGE_UNAVAILABLE' } });
      await expect(env.broker.files.store.check()).rejects.toMatchObject({
        code: 'STORAGE_UNAVAILABLE',
      });
    } finally {
      await s3.start();
    }
    expect(await (await download(ref)).text()).toBe('before the outage');
    expect((await upload('after the outage')).status).toBe(201);
  });

  it('deletes a file while storage is down, and the sweep removes its bytes once it is back', async () => {
    const alice = userCaller(ALICE);
    const created = (await (await upload('to delete')).json()) as { file: { ref: string } };
    await s3.stop();
    try {
      await env.broker.files.remove(alice, created.file.ref);
    } finally {
      await s3.start();
    }
    await expect(env.broker.files.info(alice, created.file.ref)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
    const stored = async () => {
      const ids: string[] = [];
      for await (const item of env.broker.files.store.list()) ids.push(item.fileId);
      return ids;
    };
    expect(await stored()).toContain(created.file.ref);
    // S3 keeps modification times in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await env.broker.files.sweep(1_000);
    expect(await stored()).not.toContain(created.file.ref);
  });
});
