import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { S3StoreSettings } from '../files/s3-store.ts';

/** A `host:port` address to listen on. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** The settings of `platform serve`, validated (docs/production.md has the table). */
export interface ServeSettings {
  /** The PostgreSQL server: the central store is its database `platform_central`. */
  readonly databaseUrl: string;
  /** The service's domain: `{base_url}` is served on it, each app on `<app>.<base domain>`. */
  readonly baseDomain: string;
  /** `{base_url}` as people reach it (behind the TLS proxy). @default `https://<base domain>` */
  readonly baseUrl: string;
  /** Where the service listens for HTTP (a TLS-terminating proxy sits in front). */
  readonly listen: ListenAddress;
  /** Where the Prometheus metrics are served, apart from the public address. */
  readonly metricsListen: ListenAddress;
  /** The 32-byte key that seals integration credentials; made on first use. */
  readonly credentialKeyFile: string;
  /** The folder that holds the apps' files when no object storage is set. */
  readonly filesDir: string;
  /**
   * S3-compatible object storage for the apps' files, instead of `filesDir`: set by its bucket
   * (`PLATFORM_S3_BUCKET`). Its secret key is never printed.
   */
  readonly objectStorage?: S3StoreSettings;
  /** How long SIGTERM waits for requests in flight before closing, in seconds. */
  readonly drainSeconds: number;
  /** The environment Functions see in `ctx.environment`. */
  readonly environment: 'production' | 'development';
  /** The organisation's name on its pages. @default the base domain */
  readonly organisation: string;
  /** The least level of log line written. */
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /**
   * What answers `ctx.ai`: an OpenAI-compatible endpoint, or the offline AI when chosen
   * explicitly. Without it, `ctx.ai` is not configured and its calls answer
   * `FEATURE_NOT_AVAILABLE`.
   */
  readonly ai?:
    | { readonly provider: 'offline' }
    | {
        readonly provider: 'openai-compatible';
        readonly baseUrl: string;
        readonly apiKey?: string | undefined;
        readonly model?: string | undefined;
      };
}

/** The outcome of reading the settings: the settings, or one line per bad setting. */
export type SettingsResult =
  | { readonly ok: true; readonly settings: ServeSettings }
  | { readonly ok: false; readonly problems: readonly string[] };

/** One setting: its key in the config file and its environment variable. */
interface SettingName {
  readonly key: string;
  readonly env: string;
}

/** Every setting, by its key in the config file; each has one environment variable. */
const names = {
  databaseUrl: { key: 'databaseUrl', env: 'PLATFORM_DATABASE_URL' },
  baseDomain: { key: 'baseDomain', env: 'PLATFORM_BASE_DOMAIN' },
  baseUrl: { key: 'baseUrl', env: 'PLATFORM_BASE_URL' },
  listen: { key: 'listen', env: 'PLATFORM_LISTEN' },
  metricsListen: { key: 'metricsListen', env: 'PLATFORM_METRICS_LISTEN' },
  credentialKeyFile: { key: 'credentialKeyFile', env: 'PLATFORM_CREDENTIAL_KEY_FILE' },
  filesDir: { key: 'filesDir', env: 'PLATFORM_FILES_DIR' },
  drainSeconds: { key: 'drainSeconds', env: 'PLATFORM_DRAIN_SECONDS' },
  environment: { key: 'environment', env: 'PLATFORM_ENVIRONMENT' },
  organisation: { key: 'organisation', env: 'PLATFORM_ORGANISATION' },
  logLevel: { key: 'logLevel', env: 'PLATFORM_LOG_LEVEL' },
  aiProvider: { key: 'aiProvider', env: 'PLATFORM_AI_PROVIDER' },
  aiBaseUrl: { key: 'aiBaseUrl', env: 'PLATFORM_AI_BASE_URL' },
  aiApiKey: { key: 'aiApiKey', env: 'PLATFORM_AI_API_KEY' },
  aiModel: { key: 'aiModel', env: 'PLATFORM_AI_MODEL' },
  s3Endpoint: { key: 's3Endpoint', env: 'PLATFORM_S3_ENDPOINT' },
  s3Bucket: { key: 's3Bucket', env: 'PLATFORM_S3_BUCKET' },
  s3Region: { key: 's3Region', env: 'PLATFORM_S3_REGION' },
  s3AccessKeyId: { key: 's3AccessKeyId', env: 'PLATFORM_S3_ACCESS_KEY_ID' },
  s3SecretAccessKey: { key: 's3SecretAccessKey', env: 'PLATFORM_S3_SECRET_ACCESS_KEY' },
  s3ForcePathStyle: { key: 's3ForcePathStyle', env: 'PLATFORM_S3_FORCE_PATH_STYLE' },
} as const satisfies Record<string, SettingName>;

type Key = keyof typeof names;

/** The settings table of docs/production.md: name, variable, default, meaning. */
export const settingNames: readonly SettingName[] = Object.values(names);

const DOMAIN =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

const listenAddress = z.string().transform((value, ctx) => {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    ctx.addIssue({ code: 'custom', message: `expected host:port (like 127.0.0.1:8080)` });
    return z.NEVER;
  }
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
});

const httpUrl = z.string().refine(
  (value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  },
  { message: 'expected an http:// or https:// URL' },
);

// Each setting's rule; a value from the environment is a string, one from the file may be typed.
const rules = {
  databaseUrl: z.string().refine(
    (value) => {
      try {
        return ['postgres:', 'postgresql:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: 'expected a postgres:// or postgresql:// URL' },
  ),
  baseDomain: z
    .string()
    .transform((value) => value.trim().toLowerCase().replace(/\.$/, ''))
    .refine((value) => DOMAIN.test(value), {
      message: 'expected a domain name without scheme or port (like apps.example.com)',
    }),
  baseUrl: httpUrl,
  listen: listenAddress,
  metricsListen: listenAddress,
  credentialKeyFile: z.string().min(1, 'expected a file path'),
  filesDir: z.string().min(1, 'expected a folder path'),
  drainSeconds: z.coerce
    .number({ message: 'expected a number of seconds' })
    .int('expected a whole number of seconds')
    .min(1, 'expected 1 to 600 seconds')
    .max(600, 'expected 1 to 600 seconds'),
  environment: z.enum(['production', 'development'], {
    message: 'expected production or development',
  }),
  organisation: z
    .string()
    .trim()
    .min(1, 'expected a name')
    .max(100, 'expected at most 100 characters'),
  logLevel: z.enum(['debug', 'info', 'warn', 'error'], {
    message: 'expected debug, info, warn or error',
  }),
  aiProvider: z.enum(['offline', 'openai-compatible'], {
    message: 'expected offline or openai-compatible',
  }),
  aiBaseUrl: httpUrl,
  aiApiKey: z.string().min(1, 'expected a key'),
  aiModel: z.string().min(1, 'expected a model name'),
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
} satisfies Record<Key, z.ZodType>;

const defaults: Partial<Record<Key, string>> = {
  baseDomain: 'localhost',
  listen: '127.0.0.1:8080',
  metricsListen: '127.0.0.1:9464',
  credentialKeyFile: 'platform-data/credentials.key',
  filesDir: 'platform-data/files',
  drainSeconds: '25',
  environment: 'production',
  logLevel: 'info',
};

/** Where {@link loadServeSettings} reads from. */
export interface SettingsSources {
  /** The environment (`process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The config file (`--config`): JSON, or YAML by its `.yaml`/`.yml` ending. */
  readonly configFile?: string | undefined;
  /** Relative paths resolve against this folder. */
  readonly cwd: string;
}

/**
 * Reads and checks every setting of `platform serve`: each from its environment variable, else
 * from the config file, else its default. Every bad setting yields one line naming it (its
 * variable, and its key when it came from the file) and what was expected; a value is never
 * repeated, since the database URL, the AI key or the S3 secret key may hold a secret.
 *
 * @example
 * ```ts
 * const result = await loadServeSettings({ env: process.env, cwd: process.cwd() });
 * if (!result.ok) for (const line of result.problems) console.error(line);
 * ```
 */
export async function loadServeSettings(sources: SettingsSources): Promise<SettingsResult> {
  const problems: string[] = [];
  let file: Record<string, unknown> = {};
  if (sources.configFile !== undefined) {
    const read = await readConfigFile(resolve(sources.cwd, sources.configFile));
    if (typeof read === 'string') return { ok: false, problems: [read] };
    file = read;
    for (const key of Object.keys(file)) {
      if (!Object.hasOwn(names, key)) {
        problems.push(
          `${key} (${sources.configFile}): not a setting of platform serve; the settings are ${Object.keys(names).join(', ')}.`,
        );
      }
    }
  }
  const values: Partial<Record<Key, unknown>> = {};
  for (const key of Object.keys(names) as Key[]) {
    const name: SettingName = names[key];
    const fromEnv = sources.env[name.env];
    const fromFile = file[key];
    const where =
      fromEnv !== undefined && fromEnv !== ''
        ? name.env
        : fromFile !== undefined
          ? `${name.env} (${key} in ${sources.configFile})`
          : name.env;
    const raw =
      fromEnv !== undefined && fromEnv !== ''
        ? fromEnv
        : fromFile !== undefined
          ? typeof fromFile === 'number'
            ? String(fromFile)
            : fromFile
          : defaults[key];
    if (raw === undefined) continue;
    const parsed = rules[key].safeParse(raw);
    if (parsed.success) values[key] = parsed.data;
    else problems.push(`${where}: ${parsed.error.issues[0]?.message ?? 'not valid'}.`);
  }
  if (
    values.databaseUrl === undefined &&
    !problems.some((p) => p.startsWith(names.databaseUrl.env))
  ) {
    problems.push(
      `${names.databaseUrl.env}: required; the PostgreSQL server that holds the central store and the apps' databases (postgres://user@host/db).`,
    );
  }
  const baseDomain = values.baseDomain as string | undefined;
  const baseUrl = values.baseUrl as string | undefined;
  if (
    baseDomain !== undefined &&
    baseUrl !== undefined &&
    new URL(baseUrl).hostname !== baseDomain
  ) {
    problems.push(`${names.baseUrl.env}: its host must be the base domain ${baseDomain}.`);
  }
  const endpointGiven = [values.aiBaseUrl, values.aiApiKey, values.aiModel].some(
    (value) => value !== undefined,
  );
  if (values.aiProvider === 'offline' && endpointGiven) {
    problems.push(
      `${names.aiProvider.env}: offline takes no ${names.aiBaseUrl.env}, ${names.aiApiKey.env} or ${names.aiModel.env}; leave them out, or choose openai-compatible.`,
    );
  } else if (
    (values.aiApiKey !== undefined ||
      values.aiModel !== undefined ||
      values.aiProvider === 'openai-compatible') &&
    values.aiBaseUrl === undefined &&
    !problems.some((p) => p.startsWith(names.aiBaseUrl.env))
  ) {
    problems.push(
      `${names.aiBaseUrl.env}: required when ${names.aiProvider.env} is openai-compatible or ${names.aiApiKey.env} or ${names.aiModel.env} is set.`,
    );
  }
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
  const paths = {
    credentialKeyFile: resolve(sources.cwd, values.credentialKeyFile as string),
    filesDir: resolve(sources.cwd, values.filesDir as string),
  };
  if (values.credentialKeyFile !== undefined) {
    const problem = await keyFileProblem(paths.credentialKeyFile);
    if (problem) problems.push(`${names.credentialKeyFile.env}: ${problem}`);
  }
  if (values.filesDir !== undefined) {
    const problem = await folderProblem(paths.filesDir);
    if (problem) problems.push(`${names.filesDir.env}: ${problem}`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const v = values as Record<Key, never>;
  const domain = v.baseDomain as string;
  return {
    ok: true,
    settings: {
      databaseUrl: v.databaseUrl,
      baseDomain: domain,
      baseUrl: ((baseUrl ?? `https://${domain}`) as string).replace(/\/$/, ''),
      listen: v.listen,
      metricsListen: v.metricsListen,
      credentialKeyFile: paths.credentialKeyFile,
      filesDir: paths.filesDir,
      drainSeconds: v.drainSeconds,
      environment: v.environment,
      organisation: (values.organisation as string | undefined) ?? domain,
      logLevel: v.logLevel,
      ...(values.s3Bucket === undefined
        ? {}
        : {
            objectStorage: {
              bucket: values.s3Bucket as string,
              endpoint: values.s3Endpoint as string | undefined,
              region: (values.s3Region as string | undefined) ?? 'us-east-1',
              accessKeyId: values.s3AccessKeyId as string | undefined,
              secretAccessKey: values.s3SecretAccessKey as string | undefined,
              forcePathStyle: (values.s3ForcePathStyle as boolean | undefined) ?? false,
            },
          }),
      ...(values.aiProvider === 'offline' ? { ai: { provider: 'offline' as const } } : {}),
      ...(values.aiBaseUrl === undefined
        ? {}
        : {
            ai: {
              provider: 'openai-compatible' as const,
              baseUrl: values.aiBaseUrl as string,
              apiKey: values.aiApiKey as string | undefined,
              model: values.aiModel as string | undefined,
            },
          }),
    },
  };
}

/** The config file's settings, or the one line that says why it cannot be read. */
async function readConfigFile(path: string): Promise<Record<string, unknown> | string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `--config: cannot read ${path} (${code ?? 'unreadable'}).`;
  }
  let data: unknown;
  try {
    data = ['.yaml', '.yml'].includes(extname(path)) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    return `--config: ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return `--config: ${path} must hold an object of settings.`;
  }
  return data as Record<string, unknown>;
}

/** Why the credential key file cannot serve: wrong size, readable by others, or no folder. */
async function keyFileProblem(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return folderProblem(dirname(path), 'its folder');
  if (!info.isFile()) return `${path} is not a file.`;
  if (info.size !== 32) return `${path} is not a 32-byte key.`;
  if ((info.mode & 0o077) !== 0) return `${path} is readable by others; chmod 600 it.`;
  return undefined;
}

/** Why `path` is not a folder the service can use (it may not exist yet: it is made). */
async function folderProblem(path: string, what = ''): Promise<string | undefined> {
  const label = what ? `${what} ${path}` : path;
  const info = await stat(path).catch(() => undefined);
  if (info !== undefined) return info.isDirectory() ? undefined : `${label} is not a folder.`;
  // A missing folder is made at start, with its parents, below the nearest one that exists.
  let parent = dirname(path);
  for (;;) {
    const found = await stat(parent).catch(() => undefined);
    if (found !== undefined) {
      return found.isDirectory() ? undefined : `${label} lies under ${parent}, which is a file.`;
    }
    if (dirname(parent) === parent) return `${label} has no existing folder above it.`;
    parent = dirname(parent);
  }
}
