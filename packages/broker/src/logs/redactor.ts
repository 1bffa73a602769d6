/** What a secret value is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Values shorter than this are not redacted: a one- to three-character secret would turn
 * ordinary words and numbers everywhere into `[REDACTED]` and hide more than it protects.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * Replaces known secret values with `[REDACTED]` in text and in parsed JSON-like structures.
 * One instance is shared by everything that prints or hands out what a Function produced (log
 * entries, its stdout and stderr, its errors, the stored errors of its jobs), and
 * {@link Redactor.set} replaces the list when the secrets change.
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
 * ```
 */
export class Redactor {
  #values: readonly string[] = [];

  /** The secret values to redact from now on (values shorter than 4 characters are ignored). */
  set(values: Iterable<string>): void {
    // Longest first, so a secret containing another is replaced whole.
    this.#values = [...new Set(values)]
      .filter((value) => value.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret value replaced. */
  text(text: string): string {
    let result = text;
    for (const secret of this.#values) {
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
    if (this.#values.length === 0) return value;
    return this.#walk(value, 0) as T;
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
