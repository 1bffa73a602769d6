import { z } from 'zod';
import type { S3StoreSettings } from '../files/s3-store.ts';
import { httpUrl, type SettingName } from './setting-rules.ts';

/** The settings of S3-compatible object storage for the apps' files, by their config-file key. */
export const objectStorageNames = {
  s3Endpoint: { key: 's3Endpoint', env: 'PLATFORM_S3_ENDPOINT' },
  s3Bucket: { key: 's3Bucket', env: 'PLATFORM_S3_BUCKET' },
  s3Region: { key: 's3Region', env: 'PLATFORM_S3_REGION' },
  s3AccessKeyId: { key: 's3AccessKeyId', env: 'PLATFORM_S3_ACCESS_KEY_ID' },
  s3SecretAccessKey: { key: 's3SecretAccessKey', env: 'PLATFORM_S3_SECRET_ACCESS_KEY' },
  s3ForcePathStyle: { key: 's3ForcePathStyle', env: 'PLATFORM_S3_FORCE_PATH_STYLE' },
} as const satisfies Record<string, SettingName>;

type S3Key = keyof typeof objectStorageNames;

/** Each object storage setting's rule; a value from the file may be typed, one from the environment is a string. */
export const objectStorageRules = {
  s3Endpoint: httpUrl,
  // S3's rule for new buckets (which R2, Garage and Ceph RGW follow too).
  s3Bucket: z.string().regex(/^(?!\d+\.\d+\.\d+\.\d+$)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    message: 'expected a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens',
  }),
  s3Region: z.string().regex(/^[a-z0-9-]{1,64}$/, {
    message: 'expected a region name (like us-east-1, or auto for Cloudflare R2)',
  }),
  s3AccessKeyId: z.string().min(1, 'expected an access key id'),
  s3SecretAccessKey: z.string().min(1, 'expected a secret access key'),
  s3ForcePathStyle: z
    .union([z.boolean(), z.enum(['true', 'false'])], { message: 'expected true or false' })
    .transform((value) => value === true || value === 'true'),
} satisfies Record<S3Key, z.ZodType>;

/**
 * Adds to `problems` what is wrong with the object storage settings taken together: any of them
 * needs the bucket, and the access key id and secret key come as a pair (a setting that already
 * has a problem is not named twice).
 */
export function addObjectStorageProblems(
  values: Readonly<Partial<Record<S3Key, unknown>>>,
  problems: string[],
): void {
  const names = objectStorageNames;
  const s3Keys = [
    's3Endpoint',
    's3Region',
    's3AccessKeyId',
    's3SecretAccessKey',
    's3ForcePathStyle',
  ] as const;
  const s3Given = s3Keys.filter((key) => values[key] !== undefined);
  if (
    s3Given.length > 0 &&
    values.s3Bucket === undefined &&
    !problems.some((p) => p.startsWith(names.s3Bucket.env))
  ) {
    problems.push(
      `${names.s3Bucket.env}: required when ${s3Given.map((key) => names[key].env).join(', ')} ${s3Given.length === 1 ? 'is' : 'are'} set; the bucket that holds the apps' files.`,
    );
  }
  if ((values.s3AccessKeyId === undefined) !== (values.s3SecretAccessKey === undefined)) {
    const missing =
      values.s3AccessKeyId === undefined ? names.s3AccessKeyId : names.s3SecretAccessKey;
    const given =
      values.s3AccessKeyId === undefined ? names.s3SecretAccessKey : names.s3AccessKeyId;
    if (!problems.some((p) => p.startsWith(missing.env))) {
      problems.push(
        `${missing.env}: required when ${given.env} is set (or leave both out for the AWS SDK's own credentials).`,
      );
    }
  }
}

/** The object storage that checked `values` describe, or none (no bucket): files go to the folder. */
export function objectStorageOf(
  values: Readonly<Partial<Record<S3Key, unknown>>>,
): S3StoreSettings | undefined {
  if (values.s3Bucket === undefined) return undefined;
  return {
    bucket: values.s3Bucket as string,
    endpoint: values.s3Endpoint as string | undefined,
    region: (values.s3Region as string | undefined) ?? 'us-east-1',
    accessKeyId: values.s3AccessKeyId as string | undefined,
    secretAccessKey: values.s3SecretAccessKey as string | undefined,
    forcePathStyle: (values.s3ForcePathStyle as boolean | undefined) ?? false,
  };
}
