/**
 * Escapes text for HTML element content and double-quoted attributes, for the broker's own
 * pages (sign-in, dashboard, organisation).
 *
 * @example
 * ```ts
 * `<td>${escapeHtml(job.queue)}</td>`;
 * ```
 */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
