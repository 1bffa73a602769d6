// C0 controls except tab, DEL and C1 controls (CSI U+009B, NEL U+0085 among them).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

/**
 * Makes text from a Function safe to print as part of one terminal line: line breaks become
 * `\n` and `\r`, every other control character (ESC of ANSI sequences included) `\xNN`. A Function's log message therefore cannot start a line that looks like the broker's
 * own (a forged sign-in link), move the cursor, or recolour the terminal.
 *
 * @example
 * ```ts
 * escapeControl('a\nb\u001b[2J'); // 'a\\nb\\x1b[2J'
 * ```
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named) return named;
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}
