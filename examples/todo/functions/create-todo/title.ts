/** Trims a todo title and collapses inner whitespace. */
export function normaliseTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ');
}
