// Fills the generated tables of docs/*.md from the sources they describe, so code and docs
// read one fact from one place. `--check` exits non-zero when a table is stale (used in tests).
import { readFileSync, writeFileSync } from 'node:fs';
import { errorCatalog } from '@platform/errors';

export const tables: Record<string, Record<string, () => string>> = {
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
