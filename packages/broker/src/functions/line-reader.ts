import type { Readable } from 'node:stream';

/** The longest line passed on whole, in bytes; the rest of a longer line is dropped. */
export const MAX_LINE_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

/**
 * Calls `onLine` for each line `input` prints, never holding more than `maxBytes` of one line:
 * a longer line is passed on as its first `maxBytes` bytes followed by a note, as soon as it
 * reaches the limit, and the rest of it up to the next newline is dropped. A child process can
 * therefore print any amount without a newline (hundreds of megabytes, or forever) without
 * growing the broker, where `readline` would buffer the whole line and finally throw
 * `RangeError: Invalid string length`. Errors of the stream are swallowed: a child's output
 * never throws in the broker. A line cut inside a multi-byte character ends in U+FFFD.
 */
export function readLines(
  input: Readable,
  onLine: (line: string) => void,
  maxBytes = MAX_LINE_BYTES,
): void {
  const parts: Buffer[] = [];
  let held = 0;
  // Set once the current line was cut and passed on: its rest is skipped until the newline.
  let skipping = false;

  const emit = (note: string) => {
    let text = Buffer.concat(parts, held).toString('utf8');
    parts.length = 0;
    held = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    onLine(text + note);
  };

  const append = (segment: Buffer) => {
    if (skipping || segment.length === 0) return;
    const room = maxBytes - held;
    // A copy, not a view: a view would keep the whole chunk it was cut from alive.
    if (segment.length <= room) {
      parts.push(Buffer.from(segment));
      held += segment.length;
      return;
    }
    parts.push(Buffer.from(segment.subarray(0, room)));
    held += room;
    emit(` … [line cut at ${maxBytes} bytes]`);
    skipping = true;
  };

  input.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      append(bytes.subarray(start, end));
      if (skipping) skipping = false;
      else emit('');
      start = end + 1;
    }
    if (start < bytes.length) append(bytes.subarray(start));
  });
  input.on('end', () => {
    if (held > 0 && !skipping) emit('');
  });
  input.on('error', () => undefined);
}
