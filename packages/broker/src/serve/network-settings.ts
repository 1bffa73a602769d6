import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { parseAllowNet } from '../functions/deno.ts';
import type { SettingName } from './setting-rules.ts';

/** The settings of what the service trusts and reaches on the network, by config key. */
export const networkNames = {
  allowNet: { key: 'allowNet', env: 'PLATFORM_ALLOW_NET' },
  trustedProxies: { key: 'trustedProxies', env: 'PLATFORM_TRUSTED_PROXIES' },
} as const satisfies Record<string, SettingName>;

// A list is comma-separated in a variable; a config file may also give an array of strings.
const list = z
  .union([z.string(), z.array(z.string())])
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(','))
      .map((one) => one.trim())
      .filter((one) => one !== ''),
  );

/** `address` or `address/prefix`, an IPv4 or IPv6 address or subnet; the problem, or undefined. */
function proxyProblem(entry: string): string | undefined {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) {
    return `"${entry}" is not an IP address or subnet (like 127.0.0.1, 10.0.0.0/8 or ::1)`;
  }
  if (prefix === undefined) return undefined;
  const bits = Number(prefix);
  const most = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || bits > most) {
    return `"${entry}" has a prefix length outside 0 to ${most}`;
  }
  return undefined;
}

/** The rules of the network settings. */
export const networkRules = {
  allowNet: list.transform((hosts, ctx) => {
    try {
      return parseAllowNet(hosts.join(','));
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/\.$/, '') });
      return z.NEVER;
    }
  }),
  trustedProxies: list.transform((entries, ctx) => {
    for (const entry of entries) {
      const problem = proxyProblem(entry);
      if (problem !== undefined) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
    }
    return entries;
  }),
} satisfies Record<keyof typeof networkNames, z.ZodType>;

/**
 * The addresses whose `X-Forwarded-For` the service believes, from the entries of
 * `PLATFORM_TRUSTED_PROXIES` (addresses and subnets, checked by {@link networkRules}).
 */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const trusted = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(prefix), type);
  }
  return trusted;
}
