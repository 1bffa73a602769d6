import S3rver from 's3rver';
import type { S3StoreSettings } from '../../src/files/s3-store.ts';
import { tempDir } from './temp-dir.ts';

/** s3rver's fixed credentials (it checks the signature against them). */
const S3RVER_KEY = 'S3RVER';

/** A running s3rver on loopback, with one bucket. */
export interface S3TestServer {
  /** Settings of a store in its bucket. */
  readonly settings: S3StoreSettings & { readonly endpoint: string };
  /** Stops the server (its port then refuses connections); the data stays for {@link start}. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

/**
 * Starts s3rver (an S3-compatible server in Node, keeping objects in a temporary folder) on
 * 127.0.0.1 with the bucket `bucket`, for tests of the object storage.
 */
export async function startS3Server(bucket = 'platform-files'): Promise<S3TestServer> {
  const dir = await tempDir('s3rver-');
  let port = 0;
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory: dir.path,
      configureBuckets: [{ name: bucket }],
    });
    port = (await server.run()).port;
  };
  const stop = async () => {
    await server?.close();
    server = undefined;
  };
  await start();
  return {
    settings: {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      region: 'us-east-1',
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      forcePathStyle: true,
    },
    stop,
    start,
    close: async () => {
      await stop();
      await dir.remove();
    },
  };
}
