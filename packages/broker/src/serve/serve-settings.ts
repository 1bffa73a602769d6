import { resolve } from 'node:path';
import { z } from 'zod';
import type { S3StoreSettings } from '../files/s3-store.ts';
import { type AiSetting, addAiProblems, aiNames, aiRules, aiSettingOf } from './ai-settings.ts';
import { type MailSetting, mailNames, mailRules, mailSettingOf } from './mail-settings.ts';
import { networkNames, networkRules } from './network-settings.ts';
import {
  addObjectStorageProblems,
  objectStorageNames,
  objectStorageOf,
  objectStorageRules,
} from './object-storage-settings.ts';
import { httpUrl, type SettingName } from './setting-rules.ts';
import { folderProblem, keyFileProblem, readConfigFile } from './settings-files.ts';

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
  readonly ai?: AiSetting;
  /**
   * The outbound mail server (`PLATFORM_SMTP_URL`): the sign-in's, onboarding's and the apps'
   * email goes out through it. Without it nothing is sent: email-link sign-in and `email.send`
   * answer `FEATURE_NOT_AVAILABLE`. Its password is never printed.
   */
  readonly mail?: MailSetting;
  /**
   * The hosts the deployed apps' Functions may reach besides the broker (a provider's token
   * endpoint or API), as `platform dev --allow-net` takes them. @default none
   */
  readonly allowNet: readonly string[];
  /**
   * The addresses and subnets of the proxies whose `X-Forwarded-For` names the client; from any
   * other peer the header is ignored. @default none: the client is the connection's peer
   */
  readonly trustedProxies: readonly string[];
}

/** The outcome of reading the settings: the settings, or one line per bad setting. */
export type SettingsResult =
  | { readonly ok: true; readonly settings: ServeSettings }
  | { readonly ok: false; readonly problems: readonly string[] };

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
  ...aiNames,
  ...objectStorageNames,
  ...networkNames,
  ...mailNames,
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
  ...aiRules,
  ...objectStorageRules,
  ...networkRules,
  ...mailRules,
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
 * repeated, since the database URL, the AI key, the S3 secret key or the SMTP URL may hold a
 * secret.
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
  addAiProblems(values, problems);
  addObjectStorageProblems(values, problems);
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
  const mail = await mailSettingOf(values, problems, {
    passwordFile:
      values.smtpPasswordFile === undefined
        ? undefined
        : resolve(sources.cwd, values.smtpPasswordFile as string),
    baseDomain,
  });
  if (problems.length > 0) return { ok: false, problems };
  const v = values as Record<Key, never>;
  const ai = aiSettingOf(values);
  const objectStorage = objectStorageOf(values);
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
      allowNet: (values.allowNet as string[] | undefined) ?? [],
      trustedProxies: (values.trustedProxies as string[] | undefined) ?? [],
      ...(objectStorage === undefined ? {} : { objectStorage }),
      ...(ai === undefined ? {} : { ai }),
      ...(mail === undefined ? {} : { mail }),
    },
  };
}
