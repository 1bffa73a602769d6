import { limits } from './limits.ts';

// One part of `local@domain`: no whitespace, no control or invisible format character, and none
// of the characters that delimit addresses in a header (`<>",;:()[]\`), so an address can never
// end a header line, start another (`\r\nBcc: ...`), or smuggle a second address.
const PART = String.raw`[^\s\p{Cc}\p{Cf}@<>",;:()[\]\\]+`;
const ADDRESS = new RegExp(`^${PART}@${PART}$`, 'u');
const LINE_BREAK_OR_CONTROL = /[\p{Cc}\u2028\u2029]/u;

/**
 * Whether `value` is one plain email address, `local@domain`, of at most
 * `limits.email.addressMaxLength` characters, as the platform accepts it for sending mail and for
 * signing in. Display names (`Ada <ada@example.com>`) and lists are not addresses.
 *
 * @example
 * ```ts
 * isEmailAddress('ada@example.com'); // true
 * isEmailAddress('ada@example.com\r\nBcc: eve@example.com'); // false
 * ```
 */
export function isEmailAddress(value: string): boolean {
  return value.length <= limits.email.addressMaxLength && ADDRESS.test(value);
}

/**
 * Whether `value` is one line of text: no line break (CR, LF, U+2028, U+2029) and no other
 * control character (tab and escape included). Header fields such as an email's subject must be
 * one line.
 *
 * @example
 * ```ts
 * isOneLine('Your order'); // true
 * isOneLine('Hi\r\nBcc: eve@example.com'); // false
 * ```
 */
export function isOneLine(value: string): boolean {
  return !LINE_BREAK_OR_CONTROL.test(value);
}
