import { styleText } from 'node:util';

/** A style of {@link paint}: what Node's `util.styleText` takes. */
export type Style = Parameters<typeof styleText>[0];

/**
 * `text` in `style` when standard output is a terminal that shows colour, plain otherwise:
 * Node's `styleText` checks the stream, so a pipe, a file, `NO_COLOR` or `TERM=dumb` get no
 * escape sequences (and `FORCE_COLOR` forces them).
 */
export function paint(style: Style, text: string): string {
  return styleText(style, text, { stream: process.stdout });
}
