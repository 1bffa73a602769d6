// Every error code the docs give with an HTTP status, such as `ACCESS_DENIED` (403), is a code
// of the catalog with that status: a renamed or invented code in a page fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { errorCatalog } from '@platform/errors';
import { describe, expect, it } from 'vitest';

const catalog: Readonly<Record<string, { readonly status: number }>> = errorCatalog;
const pages = readdirSync('docs').filter((name) => name.endsWith('.md'));
// `CODE` (403), `CODE`, (403) or `CODE` (HTTP 403).
const coded = /`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`,? \((?:HTTP )?(\d{3})\b/g;

describe('error codes named in the docs', () => {
  it.each(pages)('docs/%s names only catalog codes, with their statuses', (page) => {
    const text = readFileSync(`docs/${page}`, 'utf8');
    const named = [...text.matchAll(coded)].map(([, code, status]) => ({
      code,
      status: Number(status),
    }));
    const wrong = named.filter(({ code, status }) => catalog[code ?? '']?.status !== status);
    expect(wrong).toEqual([]);
  });
});
