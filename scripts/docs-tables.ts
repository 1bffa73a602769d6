// Fills the generated tables of docs/*.md from the sources they describe, so code and docs
// read one fact from one place. `--check` exits non-zero when a table is stale (used in tests).
import { readFileSync, writeFileSync } from 'node:fs';
import { errorCatalog } from '@platform/errors';
import { limits } from '@platform/schema';

/**
 * A lifetime in the words of the pages and messages that state it: `15 minutes`, `24 hours`,
 * `30 days`. A single day is said in hours, as the confirmation pages do.
 */
function lifetime(seconds: number): string {
  const units: [size: number, unit: string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  const fits = ([size]: [number, string]) =>
    seconds % size === 0 && seconds > (size === 86_400 ? size : 0);
  const [size, unit] = units.find(fits) ?? [1, 'second'];
  const count = seconds / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The lifetimes a person meets, as docs/auth.md lists them: what, its limit, where it is stated. */
const lifetimes: [what: string, key: string, seconds: number][] = [
  ['Email link (sign-in, confirmation)', 'emailLinkSeconds', limits.emailLinkSeconds],
  [
    "Confirmation cookie of a link's review page",
    'confirmationCookieSeconds',
    limits.confirmationCookieSeconds,
  ],
  [
    'Time to confirm a new address',
    'confirmationDeadlineSeconds',
    limits.confirmationDeadlineSeconds,
  ],
  ['Session', 'sessionSeconds', limits.sessionSeconds],
  ['Access token (JWT)', 'accessTokenSeconds', limits.accessTokenSeconds],
  ['Sign-in handed to another app of the organisation', 'handoffSeconds', limits.handoffSeconds],
  ['Sign-in age that account deletion requires', 'recentSignInSeconds', limits.recentSignInSeconds],
  [
    'App access token or agent credential request, to approve and claim',
    'tokenRequestSeconds',
    limits.tokenRequestSeconds,
  ],
  ['Reveal link of a new app access token', 'revealLinkSeconds', limits.revealLinkSeconds],
  [
    'Setup link of the first platform administrator (`platform serve`)',
    'setupLinkSeconds',
    limits.setupLinkSeconds,
  ],
  [
    'Connect link of an integration',
    'integration.connectLinkSeconds',
    limits.integration.connectLinkSeconds,
  ],
  [
    "OAuth sign-in at an integration's provider",
    'integration.oauthStateSeconds',
    limits.integration.oauthStateSeconds,
  ],
];

export const tables: Record<string, Record<string, () => string>> = {
  'docs/auth.md': {
    lifetimes: () =>
      [
        '| what | lasts | `limits.` |',
        '|---|---|---|',
        ...lifetimes.map(
          ([what, key, seconds]) => `| ${what} | ${lifetime(seconds)} | \`${key}\` |`,
        ),
      ].join('\n'),
  },
  'docs/backups.md': {
    backups: () =>
      [
        '| setting | default | `limits.backups.` |',
        '|---|---|---|',
        `| Time between scheduled backups (settable per app) | ${lifetime(limits.backups.intervalSeconds)} | \`intervalSeconds\` |`,
        `| Shortest time between scheduled backups an app may set | ${lifetime(limits.backups.intervalMinSeconds)} | \`intervalMinSeconds\` |`,
        `| Days whose newest backup is kept | ${limits.backups.daily} | \`daily\` |`,
        `| Weeks whose newest backup is kept | ${limits.backups.weekly} | \`weekly\` |`,
        `| Longest a backup outlives its owner's account deletion | ${lifetime(limits.backups.erasureMaxSeconds)} | \`erasureMaxSeconds\` |`,
      ].join('\n'),
  },
  'docs/errors.md': {
    catalog: () =>
      [
        '| code | HTTP | retryable | meaning |',
        '|---|---|---|---|',
        ...Object.entries(errorCatalog).map(
          ([code, e]) =>
            `| \`${code}\` | ${e.status || '—'} | ${e.retryable ? 'yes' : 'no'} | ${e.meaning} |`,
        ),
      ].join('\n'),
  },
};

/** The file's text with every `<!-- NAME:start -->…<!-- NAME:end -->` block regenerated. */
export function render(file: string, text: string): string {
  let out = text;
  for (const [name, make] of Object.entries(tables[file] ?? {})) {
    const pattern = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
    if (!pattern.test(out)) throw new Error(`${file} has no ${name} block`);
    out = out.replace(pattern, (_, start: string, end: string) => `${start}\n${make()}\n${end}`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const file of Object.keys(tables)) {
    const text = readFileSync(file, 'utf8');
    const next = render(file, text);
    if (next === text) continue;
    if (check) {
      console.error(`${file} is stale: run npm run docs:tables`);
      stale = true;
    } else writeFileSync(file, next);
  }
  if (stale) process.exit(1);
}
