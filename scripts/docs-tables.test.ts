import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { render, tables } from './docs-tables.ts';

describe('generated docs tables', () => {
  it.each(Object.keys(tables))('%s matches its sources (run npm run docs:tables)', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(render(file, text)).toBe(text);
  });
});
