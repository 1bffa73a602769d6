// The pages' templates (hono's `html`): values are escaped by default, the broker's own markup
// is kept as it is, and the shell escapes what a page passes it.
import { describe, expect, it } from 'vitest';
import { accountPage } from '../../src/deletion/account-page.ts';
import { hidden, markup, renderPage } from '../../src/pages/page-shell.ts';

const hostile = `"><script>alert(1)</script>'`;

describe('page markup', () => {
  it('escapes every interpolated value and keeps nested markup', () => {
    const inner = markup`<b>${hostile}</b>`;
    expect(markup`<p title="${hostile}">${inner}</p>`.toString()).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"><b>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;</b></p>',
    );
    expect(hidden('csrf', hostile).toString()).not.toContain('<script>');
  });

  it('escapes the title and body attributes of the shell, not the body', () => {
    const page = renderPage(
      { title: hostile, body: '<h1>Hi</h1>', bodyAttributes: { 'data-x': hostile } },
      'n"once',
    );
    expect(page).toContain('<h1>Hi</h1>');
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('nonce="n&quot;once"');
  });

  it('escapes the address on the account page', () => {
    const page = accountPage({
      email: `${hostile}@example.com`,
      csrf: hostile,
      recentSignIn: true,
    });
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).toContain('<form method="post" action="/_platform/auth/account/delete">');
  });
});
