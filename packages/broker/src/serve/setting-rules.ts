import { z } from 'zod';

/** One setting of `platform serve`: its key in the config file and its environment variable. */
export interface SettingName {
  readonly key: string;
  readonly env: string;
}

/** The rule of a setting that holds an http:// or https:// URL. */
export const httpUrl = z.string().refine(
  (value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  },
  { message: 'expected an http:// or https:// URL' },
);
