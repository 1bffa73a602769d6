import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isErrorCode } from '@platform/errors';
import { manifestDiagnosticCodes } from '@platform/schema/manifest';
import { describe, expect, it } from 'vitest';

// Every `code: 'SOME_CODE'` literal in the packages' sources names either a platform error code
// (a PlatformError the platform raises) or a manifest diagnostic; a code in neither catalog
// would reach users with status 500 and no documented meaning.
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// TSDoc examples show Functions' own codes (`errors.notFound('USER_GONE', ...)`): not raised here.
const withoutComments = (text: string): string =>
  text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .join('\n');

// A package without sources of its own (create-app is a bin that runs the broker's init) has
// no literals to check.
const packages = readdirSync('packages')
  .map((name) => join('packages', name, 'src'))
  .filter((dir) => existsSync(dir));
const literals = packages
  .flatMap(sources)
  .flatMap((file) =>
    [...withoutComments(readFileSync(file, 'utf8')).matchAll(/\bcode:\s*'([A-Z][A-Z0-9_]*)'/g)].map(
      (match) => ({ file, code: match[1] ?? '' }),
    ),
  );

describe('the error catalog', () => {
  it('finds the code literals it checks', () => {
    expect(literals.map((l) => l.code)).toContain('ACCOUNT_VERIFICATION_REQUIRED');
  });

  it('holds every code the packages raise', () => {
    const unknown = literals.filter(
      ({ code }) => !isErrorCode(code) && !Object.hasOwn(manifestDiagnosticCodes, code),
    );
    expect(unknown).toEqual([]);
  });
});
