import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PlatformError } from '@platform/errors';
import { type FileStore, type StoredGeneration, storageUnavailable } from './file-store.ts';

/** Where and how to reach S3-compatible object storage (docs/production.md, "File storage"). */
export interface S3StoreSettings {
  /**
   * The server's address, for a store other than AWS S3 (`https://<account>.r2.cloudflarestorage.com`,
   * a Garage or Ceph RGW node). @default AWS S3 in `region`
   */
  readonly endpoint?: string | undefined;
  /** The bucket; it must exist. */
  readonly bucket: string;
  /** The bucket's region (`auto` for Cloudflare R2). @default 'us-east-1' */
  readonly region?: string | undefined;
  /**
   * The access key; with `secretAccessKey`, or neither, and the AWS SDK finds credentials the
   * usual way (environment, instance role).
   */
  readonly accessKeyId?: string | undefined;
  /** The secret of `accessKeyId`. Never logged or shown. */
  readonly secretAccessKey?: string | undefined;
  /**
   * Addresses the bucket in the path (`https://host/bucket/key`) rather than the host name
   * (`https://bucket.host/key`): most servers other than AWS need it. @default false
   */
  readonly forcePathStyle?: boolean | undefined;
  /** Put before every key, such as `apps/<app id>/`: several apps share one bucket. @default '' */
  readonly prefix?: string | undefined;
}

/** How many tries a request gets (the SDK's own backoff between them). */
const MAX_ATTEMPTS = 3;
/** A server that does not accept a connection within this counts as down. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A request whose socket stays silent this long is given up (and tried again). */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Multipart parts of an upload: S3's least part size is 5 MiB; at most `QUEUE_SIZE` parts are
 * held in memory at once, which bounds an upload's memory whatever the file's size.
 */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * File contents in S3-compatible object storage: one object per generation, at
 * `<prefix><fileId>/<generation>`. An object appears only once its upload completed (S3 puts
 * are atomic and a multipart upload is invisible until completed), so a failed or interrupted
 * upload never leaves a readable half; a failed multipart upload is aborted, and the sweep
 * aborts those an ended process left.
 */
export class S3FileStore implements FileStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(settings: S3StoreSettings) {
    this.#bucket = settings.bucket;
    this.#prefix = settings.prefix ?? '';
    const credentials =
      settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined;
    this.#client = new S3Client({
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
      region: settings.region ?? 'us-east-1',
      forcePathStyle: settings.forcePathStyle ?? false,
      ...(credentials === undefined ? {} : { credentials }),
      maxAttempts: MAX_ATTEMPTS,
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      // Checksums only where an operation requires one. Current AWS SDKs otherwise send a
      // streamed body as `aws-chunked` with a trailing CRC checksum, which S3-compatible servers
      // such as s3rver (our test server) do not parse: they store the chunk framing as the
      // file's bytes. The TLS connection and S3's own Content-MD5/ETag checks remain.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get description(): string {
    return `s3 ${this.#bucket}/${this.#prefix}`;
  }

  #key(fileId: string, generation: number): string {
    return `${this.#prefix}${fileId}/${generation}`;
  }

  /**
   * Uploads `body` as it arrives: one PUT for a small file, a multipart upload of
   * {@link PART_SIZE} parts for a larger one, aborted when anything fails.
   */
  async put(
    fileId: string,
    generation: number,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<void> {
    // The body's own error (a size limit) is the answer, not what aborting the upload then met.
    let bodyError: { error: unknown } | undefined;
    async function* watched(): AsyncIterable<Uint8Array> {
      try {
        yield* body;
      } catch (error) {
        bodyError = { error };
        throw error;
      }
    }
    const upload = new Upload({
      client: this.#client,
      params: {
        Bucket: this.#bucket,
        Key: this.#key(fileId, generation),
        Body: Readable.from(watched()),
      },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      if (bodyError) throw bodyError.error;
      throw s3Error(error, 'stored');
    }
  }

  /** The object's bytes as they download, or `undefined` when there is no such object. */
  async get(fileId: string, generation: number): Promise<Readable | undefined> {
    try {
      const { Body } = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(fileId, generation) }),
      );
      // In Node the SDK's body is the HTTP response itself, a Readable.
      return Body as Readable | undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw s3Error(error, 'read');
    }
  }

  async removeGeneration(fileId: string, generation: number): Promise<void> {
    await this.#delete(this.#key(fileId, generation));
  }

  async removeFile(fileId: string): Promise<void> {
    for await (const key of this.#keys(`${this.#prefix}${fileId}/`)) await this.#delete(key.key);
  }

  async *list(): AsyncIterable<StoredGeneration> {
    for await (const { key, modifiedAt } of this.#keys(this.#prefix)) {
      const match = /^([^/]+)\/(\d+)$/.exec(key.slice(this.#prefix.length));
      if (!match) continue;
      yield { fileId: match[1] as string, generation: Number(match[2]), modifiedAt };
    }
  }

  /**
   * Aborts multipart uploads under the prefix begun more than `olderThanMs` ago (a process that
   * ended mid-upload). A server that does not list uploads (s3rver) has nothing to sweep; a
   * bucket lifecycle rule that aborts incomplete uploads does the same on the server's side.
   */
  async sweep(olderThanMs: number): Promise<number> {
    const before = Date.now() - olderThanMs;
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      let page: ListMultipartUploadsCommandOutput;
      try {
        page = await this.#client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.#bucket,
            Prefix: this.#prefix,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
      } catch (error) {
        if ((error as { name?: string }).name === 'NotImplemented') return removed;
        throw s3Error(error, 'removed');
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) >= before) {
          continue;
        }
        await this.#client
          .send(
            new AbortMultipartUploadCommand({
              Bucket: this.#bucket,
              Key: upload.Key,
              UploadId: upload.UploadId,
            }),
          )
          .catch((error: unknown) => {
            throw s3Error(error, 'removed');
          });
        removed++;
      }
      if (!page.IsTruncated) return removed;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
    }
  }

  /** The bucket answers and may be used with these credentials. */
  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      throw s3Error(error, 'read');
    }
  }

  close(): void {
    this.#client.destroy();
  }

  async #delete(key: string): Promise<void> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (error) {
      if (isMissing(error)) return;
      throw s3Error(error, 'removed');
    }
  }

  async *#keys(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: prefix,
            ContinuationToken: token,
          }),
        );
      } catch (error) {
        throw s3Error(error, 'read');
      }
      for (const item of page.Contents ?? []) {
        if (item.Key) yield { key: item.Key, modifiedAt: item.LastModified ?? new Date(0) };
      }
      token = page.NextContinuationToken;
    } while (token);
  }
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/** What the store's answer (or silence) means, for the message. */
function whyOf(error: unknown): { why: string; reason: string } {
  const e = error as {
    name?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = e.$metadata?.httpStatusCode;
  const name = e.name && e.name !== 'Error' ? e.name : undefined;
  if (status === 403 || name === 'AccessDenied' || name === 'InvalidAccessKeyId') {
    return { why: 'the object storage refused the credentials', reason: name ?? 'AccessDenied' };
  }
  if (name === 'NoSuchBucket') return { why: 'the bucket does not exist', reason: name };
  if (status !== undefined && status >= 500) {
    return { why: `the object storage failed (HTTP ${status})`, reason: name ?? `HTTP${status}` };
  }
  return {
    why: 'the object storage did not answer',
    reason: e.code ?? name ?? 'unreachable',
  };
}

/**
 * An error of the S3 client as `STORAGE_UNAVAILABLE` (by the error's name or code only: an SDK
 * message may carry the endpoint or the bucket). A `PlatformError` (thrown by the body, such as
 * `FILE_TOO_LARGE`) passes unchanged.
 */
function s3Error(error: unknown, action: 'stored' | 'read' | 'removed'): unknown {
  if (error instanceof PlatformError) return error;
  const { why, reason } = whyOf(error);
  return storageUnavailable(action, why, reason, error);
}
