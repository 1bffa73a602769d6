import { type Document, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import type { PathSegment } from './diagnostic.ts';

/** A one-based source position. */
export interface Position {
  /** One-based line. */
  readonly line: number;
  /** One-based column. */
  readonly column: number;
}

/** Where to point for a path: at the mapping key (`key`) or at its value (`value`). */
export type Anchor = 'key' | 'value';

/**
 * Finds the source position of a manifest path in the parsed YAML document. A path that does not
 * exist (a missing field) resolves to its nearest existing ancestor, so "field missing" points at
 * the mapping that lacks it.
 */
export class SourceLocator {
  readonly #doc: Document.Parsed;
  readonly #lines: LineCounter;

  /** Wraps a document parsed with `lineCounter`. */
  constructor(doc: Document.Parsed, lines: LineCounter) {
    this.#doc = doc;
    this.#lines = lines;
  }

  /** The position of `path`, or of its nearest existing ancestor. */
  locate(path: readonly PathSegment[], anchor: Anchor = 'value'): Position {
    let node: unknown = this.#doc.contents;
    let best: Node | null = isNode(node) ? node : null;
    for (const [i, segment] of path.entries()) {
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find(
          (p) => isScalar(p.key) && String(p.key.value) === String(segment),
        );
        if (pair === undefined) break;
        if (last && anchor === 'key' && isNode(pair.key)) {
          best = pair.key;
          break;
        }
        node = pair.value;
        // A key with an empty value (`function:`) has no value node; point at the key.
        best = isNode(node) && node.range ? node : isNode(pair.key) ? pair.key : best;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
        if (!isNode(node)) break;
        best = node;
      } else {
        break;
      }
    }
    return this.offset(best?.range?.[0] ?? 0);
  }

  /** The position of a character offset in the source. */
  offset(offset: number): Position {
    const { line, col } = this.#lines.linePos(offset);
    return { line, column: col };
  }
}

function isNode(value: unknown): value is Node {
  return isMap(value) || isSeq(value) || isScalar(value);
}
