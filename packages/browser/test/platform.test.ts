import { describe, expect, it } from 'vitest';

describe('the ready platform export', () => {
  it('can be imported outside a browser without reading location', async () => {
    expect('location' in globalThis).toBe(false);
    const { platform } = await import('../src/index.ts');
    expect(typeof platform.auth.currentUser).toBe('function');
    // Only use needs the page's origin; outside a page that is a programmer error.
    await expect(platform.auth.currentUser()).rejects.toBeInstanceOf(TypeError);
    expect(() => platform.auth.signInUrl()).toThrow(TypeError);
  });
});
