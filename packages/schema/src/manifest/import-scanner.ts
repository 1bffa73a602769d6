/** One import or re-export specifier found in a source file. */
export interface ImportSite {
  /** The module specifier as written. */
  readonly specifier: string;
  /** Character offset of the specifier's opening quote. */
  readonly offset: number;
}

/**
 * Replaces the contents of comments with spaces (keeping newlines and offsets), so import
 * statements in comments are not seen. Strings and template literals are skipped over intact.
 */
export function blankComments(source: string): string {
  const out = source.split('');
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') out[i++] = ' ';
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      for (; i < stop; i++) if (source[i] !== '\n') out[i] = ' ';
    } else if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < source.length && source[i] !== c && !(c !== '`' && source[i] === '\n')) {
        i += source[i] === '\\' ? 2 : 1;
      }
      i++;
    } else {
      i++;
    }
  }
  return out.join('');
}

const patterns = [
  // import x from '...', import { a } from '...', export * from '...', export { a } from '...'
  /\b(?:import|export)\s+(type\s+)?[^'";]*?\bfrom\s*(['"])([^'"\r\n]*)\2/g,
  // import '...'
  /\bimport\s*()(['"])([^'"\r\n]*)\2/g,
  // import('...')
  /\bimport\s*\(\s*()(['"])([^'"\r\n]*)\2/g,
];

/**
 * Finds the module specifiers a TypeScript file imports at run time: static imports, re-exports,
 * side-effect imports and dynamic `import('literal')`. Type-only imports (`import type`,
 * `export type`) are skipped: the bundler erases them.
 */
export function findImports(source: string): ImportSite[] {
  const text = blankComments(source);
  const sites = new Map<number, ImportSite>();
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      if (match[1]) continue;
      const specifier = match[3] ?? '';
      const offset = match.index + match[0].length - specifier.length - 2;
      sites.set(offset, { specifier, offset });
    }
  }
  return [...sites.values()].sort((a, b) => a.offset - b.offset);
}

/** One-based line and column of a character offset. */
export function positionOf(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (source[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
