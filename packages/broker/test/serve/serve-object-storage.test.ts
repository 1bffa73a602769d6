// `platform serve` with the apps' files in S3-compatible object storage: the PLATFORM_S3_*
// settings are checked like the others (never printing the secret key), and readyz reports the
// storage (s3rver on loopback, stopped and started by the test).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceLogger } from '../../src/observability/logger.ts';
import { loadServeSettings } from '../../src/serve/serve-settings.ts';
import { type RunningService, startServe } from '../../src/serve/start-serve.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { type S3TestServer, startS3Server } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SECRET = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';

describe('the object storage settings of platform serve', () => {
  const load = (env: Record<string, string>) =>
    loadServeSettings({
      env: { PLATFORM_DATABASE_URL: 'postgres://u@localhost/db', ...env },
      cwd: '/tmp',
    });

  it('reads the bucket, endpoint, region, credentials and path style', async () => {
    const result = await load({
      PLATFORM_S3_BUCKET: 'platform-files',
      PLATFORM_S3_ENDPOINT: 'https://acct.r2.cloudflarestorage.com',
      PLATFORM_S3_REGION: 'auto',
      PLATFORM_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      PLATFORM_S3_SECRET_ACCESS_KEY: SECRET,
      PLATFORM_S3_FORCE_PATH_STYLE: 'true',
    });
    expect(result).toMatchObject({
      ok: true,
      settings: {
        objectStorage: {
          bucket: 'platform-files',
          endpoint: 'https://acct.r2.cloudflarestorage.com',
          region: 'auto',
          accessKeyId: 'AKIAEXAMPLE',
          secretAccessKey: SECRET,
          forcePathStyle: true,
        },
      },
    });
    const plain = await load({ PLATFORM_S3_BUCKET: 'platform-files' });
    expect(plain).toMatchObject({
      ok: true,
      settings: { objectStorage: { region: 'us-east-1', forcePathStyle: false } },
    });
    expect(await load({})).not.toHaveProperty('settings.objectStorage');
  });

  it('names each bad setting in one line and never repeats the secret key', async () => {
    const result = await load({
      PLATFORM_S3_ENDPOINT: 'ftp://storage',
      PLATFORM_S3_REGION: 'US East',
      PLATFORM_S3_SECRET_ACCESS_KEY: SECRET,
      PLATFORM_S3_FORCE_PATH_STYLE: 'yes',
    });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toEqual([
      'PLATFORM_S3_ENDPOINT: expected an http:// or https:// URL.',
      'PLATFORM_S3_REGION: expected a region name (like us-east-1, or auto for Cloudflare R2).',
      'PLATFORM_S3_FORCE_PATH_STYLE: expected true or false.',
      "PLATFORM_S3_BUCKET: required when PLATFORM_S3_SECRET_ACCESS_KEY is set; the bucket that holds the apps' files.",
      "PLATFORM_S3_ACCESS_KEY_ID: required when PLATFORM_S3_SECRET_ACCESS_KEY is set (or leave both out for the AWS SDK's own credentials).",
    ]);
    expect(JSON.stringify(problems)).not.toContain(SECRET);
    const badBucket = await load({ PLATFORM_S3_BUCKET: 'My_Bucket' });
    expect(badBucket.ok ? [] : badBucket.problems).toEqual([
      'PLATFORM_S3_BUCKET: expected a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens.',
    ]);
  });
});

describe('readyz of platform serve with object storage', () => {
  let postgres: PostgresServer;
  let s3: S3TestServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let service: RunningService;
  const logs: string[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    s3 = await startS3Server();
    dir = await tempDir('serve-s3-');
    const loaded = await loadServeSettings({
      env: {
        PLATFORM_DATABASE_URL: postgres.url,
        PLATFORM_LISTEN: '127.0.0.1:0',
        PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
        PLATFORM_CREDENTIAL_KEY_FILE: join(dir.path, 'credentials.key'),
        PLATFORM_FILES_DIR: join(dir.path, 'files'),
        PLATFORM_S3_BUCKET: s3.settings.bucket,
        PLATFORM_S3_ENDPOINT: s3.settings.endpoint,
        PLATFORM_S3_ACCESS_KEY_ID: s3.settings.accessKeyId ?? '',
        PLATFORM_S3_SECRET_ACCESS_KEY: s3.settings.secretAccessKey ?? '',
        PLATFORM_S3_FORCE_PATH_STYLE: 'true',
      },
      cwd: dir.path,
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    service = await startServe({
      settings: loaded.settings,
      logger: createServiceLogger({
        level: 'info',
        destination: { write: (line: string) => logs.push(line) },
      }),
      announce: () => undefined,
    });
  }, 120_000);
  afterAll(async () => {
    await service?.drain();
    await s3?.close();
    await postgres?.stop();
    await dir?.remove();
  });

  const readyz = async () => {
    const response = await fetch(`${service.listenUrl}/_platform/readyz`);
    return { status: response.status, body: await response.json() };
  };

  /** Readyz's answer once it differs from `from`, asked every 100 ms for up to `withinMs`. */
  const readyzOnceNot = async (from: number, withinMs: number) => {
    const deadline = Date.now() + withinMs;
    let answer = await readyz();
    while (answer.status === from && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await readyz();
    }
    return answer;
  };

  it('is ready while the bucket answers, and not ready while the storage is down', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    await s3.stop();
    try {
      // Readyz answers from a probe every second whose result counts for at most 3 s.
      expect(await readyzOnceNot(200, 5_000)).toEqual({
        status: 503,
        body: { status: 'not ready', reason: 'file storage unreachable' },
      });
    } finally {
      await s3.start();
    }
    expect(await readyzOnceNot(503, 10_000)).toEqual({ status: 200, body: { status: 'ready' } });
    // The start line names the bucket, never the credentials.
    const started = logs.find((line) => line.includes('platform serve started')) ?? '';
    expect(started).toContain(`s3 ${s3.settings.bucket}/`);
    expect(logs.join('\n')).not.toContain(s3.settings.secretAccessKey);
  });
});
