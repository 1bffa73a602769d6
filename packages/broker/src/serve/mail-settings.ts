import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { parseEmail } from '../kernel/email.ts';
import type { SettingName } from './setting-rules.ts';

/** The outbound mail server of `platform serve` (docs/production.md, "Email"). */
export interface MailSetting {
  /** `smtp:` (STARTTLS when the server offers it) or `smtps:` (TLS from the start). */
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  /** The account at the mail server, from the URL's user part. */
  readonly user?: string | undefined;
  /** Read from `PLATFORM_SMTP_PASSWORD_FILE`; never printed. */
  readonly password?: string | undefined;
  /** The sender of the service's own mail (its sign-in and onboarding emails). */
  readonly from: string;
}

/** The mail settings, by their key in the config file. */
export const mailNames = {
  smtpUrl: { key: 'smtpUrl', env: 'PLATFORM_SMTP_URL' },
  smtpPasswordFile: { key: 'smtpPasswordFile', env: 'PLATFORM_SMTP_PASSWORD_FILE' },
  mailFrom: { key: 'mailFrom', env: 'PLATFORM_MAIL_FROM' },
} as const satisfies Record<string, SettingName>;

type MailKey = keyof typeof mailNames;

const SMTP_URL_EXPECTED =
  'expected an smtp:// or smtps:// URL with a host (like smtp://mailer@mail.example.com:587)';

/** Each mail setting's rule; a value is never repeated in a message (the URL may hold a secret). */
export const mailRules = {
  smtpUrl: z.string().transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: SMTP_URL_EXPECTED });
      return z.NEVER;
    }
    if (!['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '') {
      ctx.addIssue({ code: 'custom', message: SMTP_URL_EXPECTED });
      return z.NEVER;
    }
    if (url.password !== '') {
      ctx.addIssue({
        code: 'custom',
        message: `holds a password; put it in a file named by ${mailNames.smtpPasswordFile.env} instead, so it stays out of the environment and the config`,
      });
      return z.NEVER;
    }
    const secure = url.protocol === 'smtps:';
    return {
      secure,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
      user: url.username === '' ? undefined : decodeURIComponent(url.username),
    };
  }),
  smtpPasswordFile: z.string().min(1, 'expected a file path'),
  mailFrom: z
    .string()
    .transform((value) => value.trim())
    .refine((value) => parseEmail(value) !== undefined, {
      message: 'expected an email address (like auth@example.com)',
    }),
} satisfies Record<MailKey, z.ZodType>;

/**
 * The checked mail setting that `values` describe, or the lines of what is wrong with them
 * taken together; `undefined` when no outbound mail is set. The password file is read here, so
 * a missing or world-readable one stops the start. The sender defaults to `auth@<base domain>`.
 */
export async function mailSettingOf(
  values: Readonly<Partial<Record<MailKey, unknown>>>,
  problems: string[],
  paths: { readonly passwordFile: string | undefined; readonly baseDomain: string | undefined },
): Promise<MailSetting | undefined> {
  const url = values.smtpUrl as Omit<MailSetting, 'password' | 'from'> | undefined;
  const urlHasProblem = problems.some((p) => p.startsWith(mailNames.smtpUrl.env));
  if (url === undefined) {
    if (!urlHasProblem) {
      for (const key of ['smtpPasswordFile', 'mailFrom'] as const) {
        if (values[key] !== undefined) {
          problems.push(
            `${mailNames[key].env}: needs ${mailNames.smtpUrl.env}, the mail server it is for; set it, or leave this out.`,
          );
        }
      }
    }
    return undefined;
  }
  let password: string | undefined;
  if (paths.passwordFile !== undefined) {
    const read = await readPasswordFile(paths.passwordFile);
    if (read.problem !== undefined) {
      problems.push(`${mailNames.smtpPasswordFile.env}: ${read.problem}`);
    } else password = read.password;
    if (url.user === undefined) {
      problems.push(
        `${mailNames.smtpPasswordFile.env}: a password needs the account it is for: name it in ${mailNames.smtpUrl.env} (smtp://user@host:587).`,
      );
    }
  }
  const from =
    (values.mailFrom as string | undefined) ??
    (paths.baseDomain === undefined ? undefined : `auth@${paths.baseDomain}`);
  if (from === undefined) return undefined;
  return { ...url, ...(password === undefined ? {} : { password }), from };
}

async function readPasswordFile(
  path: string,
): Promise<{ password: string; problem?: undefined } | { problem: string }> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return { problem: `${path} does not exist.` };
  if (!info.isFile()) return { problem: `${path} is not a file.` };
  if ((info.mode & 0o077) !== 0) return { problem: `${path} is readable by others; chmod 600 it.` };
  // One trailing newline is the editor's, not the password's.
  const password = (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
  if (password === '') return { problem: `${path} is empty.` };
  return { password };
}
