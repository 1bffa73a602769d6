/**
 * What a secret value is replaced with, wherever the platform prints or hands out what a
 * Function produced: the SDK's `ctx.log` entries and the broker's log, a Function's printed
 * output, its errors and the stored errors of its jobs.
 */
export const REDACTED = '[REDACTED]';

/**
 * Values shorter than this are not redacted: a one- to three-character secret would turn
 * ordinary words and numbers everywhere into `[REDACTED]` and hide more than it protects.
 */
export const MIN_SECRET_LENGTH = 4;

const NONE: readonly string[] = [];

/**
 * Replaces known secret values with {@link REDACTED} in text and in parsed JSON-like
 * structures. The one redaction of the platform: the server SDK redacts its log entries with it
 * and the broker its log, the Functions' output and their errors.
 *
 * A redactor knows three kinds of values, redacted alike: those given to {@link Redactor.set}
 * (a list replaced whole, such as the secrets file as it is now), those given to
 * {@link Redactor.add} (kept until the redactor is dropped) and those given to
 * {@link Redactor.hold} (kept until released, such as one call's credentials). A redactor made
 * with a parent also redacts every value its parent knows, now and after the parent changes:
 * one Function's output redactor adds its calls' values to the broker's secrets that way.
 *
 * Structures are redacted value by value, never as JSON text: replacing inside serialised JSON
 * breaks it whenever a secret looks like part of the syntax or of a number (`1234` in
 * `{"n":12345}`).
 *
 * @example
 * ```ts
 * const redactor = new Redactor();
 * redactor.set(['sk_live_123']);
 * redactor.text('key sk_live_123'); // 'key [REDACTED]'
 * redactor.value({ key: 'sk_live_123' }); // { key: '[REDACTED]' }
 * const release = new Redactor(redactor).hold(['tok_abc_987']); // until release()
 * ```
 */
export class Redactor {
  readonly #parent: Redactor | undefined;
  #listed: ReadonlySet<string> = new Set();
  readonly #added = new Set<string>();
  /** Held values with how many holds keep each. */
  readonly #held = new Map<string, number>();
  /** Every value, longest first, or `undefined` after a change; with the parent's list it used. */
  #all: readonly string[] | undefined;
  #allFrom: readonly string[] = NONE;

  /** `parent`: a redactor whose values this one redacts too. @default none */
  constructor(parent?: Redactor) {
    this.#parent = parent;
  }

  /** Replaces the values given to the last `set` (values shorter than 4 characters are ignored). */
  set(values: Iterable<string>): void {
    this.#listed = new Set(values);
    this.#all = undefined;
  }

  /** Redacts `values` too from now on. */
  add(values: Iterable<string>): void {
    for (const value of values) this.#added.add(value);
    this.#all = undefined;
  }

  /**
   * Redacts `values` too until the returned function is called (once is enough; later calls do
   * nothing). A value held twice stays redacted until both holds are released.
   */
  hold(values: Iterable<string>): () => void {
    const held = [...new Set(values)].filter((value) => value.length >= MIN_SECRET_LENGTH);
    if (held.length === 0) return () => {};
    for (const value of held) this.#held.set(value, (this.#held.get(value) ?? 0) + 1);
    this.#all = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const value of held) {
        const count = (this.#held.get(value) ?? 1) - 1;
        if (count > 0) this.#held.set(value, count);
        else this.#held.delete(value);
      }
      this.#all = undefined;
    };
  }

  /** `text` with every known secret value replaced. */
  text(text: string): string {
    let result = text;
    for (const secret of this.#values()) {
      if (result.includes(secret)) result = result.replaceAll(secret, REDACTED);
    }
    return result;
  }

  /**
   * A copy of `value` with every string, object key and number redacted; a number whose digits
   * hold a secret becomes the redacted string. Other values are kept as they are; the input is
   * never changed.
   */
  value<T>(value: T): T {
    if (this.#values().length === 0) return value;
    return this.#walk(value, 0) as T;
  }

  /**
   * The first known secret value that occurs in `value` (a string, or any string, object key or
   * number inside a JSON-like structure, however deep), else `undefined`.
   */
  find(value: unknown): string | undefined {
    const secrets = this.#values();
    if (secrets.length === 0) return undefined;
    const inText = (text: string) => secrets.find((secret) => text.includes(secret));
    // A stack rather than recursion: the value may nest deeper than any call stack allows.
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const item = stack.pop();
      if (typeof item === 'string') {
        const found = inText(item);
        if (found !== undefined) return found;
      } else if (typeof item === 'number' || typeof item === 'bigint') {
        const found = inText(String(item));
        if (found !== undefined) return found;
      } else if (Array.isArray(item)) {
        for (const member of item) stack.push(member);
      } else if (typeof item === 'object' && item !== null) {
        for (const [key, member] of Object.entries(item)) stack.push(key, member);
      }
    }
    return undefined;
  }

  // Longest first, so a secret containing another is replaced whole; rebuilt after a change
  // here or in the parent.
  #values(): readonly string[] {
    const inherited = this.#parent ? this.#parent.#values() : NONE;
    if (this.#all === undefined || this.#allFrom !== inherited) {
      const own = [...this.#listed, ...this.#added, ...this.#held.keys()];
      this.#all =
        own.length === 0
          ? inherited
          : [...new Set([...inherited, ...own])]
              .filter((value) => value.length >= MIN_SECRET_LENGTH)
              .sort((a, b) => b.length - a.length);
      this.#allFrom = inherited;
    }
    return this.#all;
  }

  #walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number' || typeof value === 'bigint') {
      const text = String(value);
      const redacted = this.text(text);
      return redacted === text ? value : redacted;
    }
    if (typeof value !== 'object' || value === null) return value;
    // Deeper than any log entry or error needs: cut rather than recurse without end.
    if (depth > 64) return REDACTED;
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, this.text(key), {
        value: this.#walk(item, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
}
