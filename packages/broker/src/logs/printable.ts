// C0 controls (tab excepted), DEL, C1 controls (U+009B is a one-character CSI on some terminals),
// the Unicode line and paragraph separators, and the bidirectional overrides and isolates, which
// reorder how the rest of a line is shown.
const UNPRINTABLE = /(?!\t)[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

const escapeChar = (char: string): string => {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * `text` made safe to print as (part of) one terminal line: line breaks, escape sequences and
 * every other control character become visible escapes (`\n`, `\r`, `\x1b`, `\u202e`), so
 * text a Function or a request chose can neither start a line of its own (a forged sign-in
 * link, say) nor recolour, move the cursor or erase what the terminal shows. Tabs stay.
 *
 * @example
 * ```ts
 * printable('done\n12:00:00.000 INFO  [auth] Sign in: http://evil.example'); // 'done\\n12:00…'
 * ```
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escapeChar);
}

/**
 * An error as the broker prints it: its stack (message and frames, one frame a line), with the
 * message made {@link printable}. The message may quote what a caller sent; the frames are the
 * runtime's own.
 */
export function printableError(error: unknown): string {
  if (!(error instanceof Error)) return printable(String(error));
  const head = error.message === '' ? error.name : `${error.name}: ${error.message}`;
  const stack = error.stack ?? head;
  // V8 starts a stack with `name: message`; anything else is printed on one line.
  if (!stack.startsWith(head)) return printable(stack);
  return printable(head) + stack.slice(head.length);
}
