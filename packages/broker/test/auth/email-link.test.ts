import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser, field, latestLinkToken, MINUTE } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const ADA = 'ada@example.com';

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'public' } });
});
afterAll(() => env?.cleanup());

describe('email-link sign-in', () => {
  it('renders the sign-in page with a CSRF cookie scoped to the sign-in pages', async () => {
    const browser = new FakeBrowser(env.broker);
    const page = await browser.navigate('/_platform/auth/sign-in?returnTo=%2Fnotes');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    const html = await page.text();
    expect(field(html, 'returnTo')).toBe('/notes');
    expect(browser.received).toEqual([
      expect.stringMatching(
        /^platform_csrf=[\w-]+; Path=\/_platform\/auth; HttpOnly; SameSite=Strict$/,
      ),
    ]);
  });

  it('captures the message in the outbox, prints the link, and sets a path-scoped claim cookie', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA, '/notes');
    const [message] = await env.broker.outbox.list(1);
    expect(message).toMatchObject({ from: 'auth', to: [ADA], subject: 'Sign in to notes' });
    expect(env.lines.some((line) => line.includes(`/_platform/auth/confirm?token=${token}`))).toBe(
      true,
    );
    const claim = browser.received.find((l) => l.startsWith('platform_claim='));
    expect(claim).toMatch(/; Max-Age=1020; Path=\/_platform\/auth\/claim; HttpOnly; SameSite=Lax$/);
  });

  it('approves nothing on a GET of the link (prefetchers), only on the explicit POST', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA);
    const prefetcher = new FakeBrowser(env.broker);
    for (let i = 0; i < 3; i++) {
      const review = await prefetcher.navigate(`/_platform/auth/confirm?token=${token}`);
      expect(review.status).toBe(200);
      expect(await review.text()).toContain('Confirm sign-in');
    }
    const poll = await browser.request('/_platform/auth/claim', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(await poll.json()).toEqual({ state: 'pending' });
    const cookie = prefetcher.received.find((l) => l.startsWith('platform_confirm='));
    expect(cookie).toMatch(
      /; Max-Age=600; Path=\/_platform\/auth\/confirm; HttpOnly; SameSite=Strict$/,
    );
    // The link still works for the person.
    expect((await new FakeBrowser(env.broker).confirmLink(token)).status).toBe(200);
  });

  it('refuses the confirmation POST without the preview-bound cookie or from another origin', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA);
    const review = await browser.navigate(`/_platform/auth/confirm?token=${token}`);
    const preview = field(await review.text(), 'preview');
    const noCookie = new FakeBrowser(env.broker);
    expect(
      (await noCookie.request('/_platform/auth/confirm', { form: { token, preview } })).status,
    ).toBe(403);
    expect(
      (await browser.request('/_platform/auth/confirm', { form: { token, preview: 'other' } }))
        .status,
    ).toBe(403);
    const crossSite = await browser.request('/_platform/auth/confirm', {
      form: { token, preview },
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    // A cookie from previewing another link does not approve this one.
    const other = await browser.requestLink('bob@example.com');
    const otherPreview = field(
      await (await browser.navigate(`/_platform/auth/confirm?token=${other}`)).text(),
      'preview',
    );
    expect(
      (await browser.request('/_platform/auth/confirm', { form: { token, preview: otherPreview } }))
        .status,
    ).toBe(403);
    expect(
      (await browser.request('/_platform/auth/confirm', { form: { token, preview } })).status,
    ).toBe(403);
  });

  it('creates the session in the requesting browser, not in the mail window', async () => {
    const desk = new FakeBrowser(env.broker);
    const phone = new FakeBrowser(env.broker);
    const token = await desk.requestLink(ADA, '/notes?x=1');
    const approved = await phone.confirmLink(token);
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain('Sign-in approved');
    expect(phone.cookie('platform_session')).toBeUndefined();
    const claim = await desk.request('/_platform/auth/claim', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(await claim.json()).toEqual({ state: 'approved', returnTo: '/notes?x=1' });
    expect(desk.cookie('platform_claim')).toBeUndefined();
    expect((await desk.session()).body.user).toMatchObject({ email: ADA });
  });

  it('lets no other browser claim the request, and the owner claims once', async () => {
    const desk = new FakeBrowser(env.broker);
    const token = await desk.requestLink(ADA);
    await desk.confirmLink(token);
    const other = new FakeBrowser(env.broker);
    const foreign = await other.request('/_platform/auth/claim', { method: 'POST' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain('This sign-in belongs to another browser');
    // A forged claim value for the same request fails too.
    const claimValue = desk.cookie('platform_claim') as string;
    other.jar.set('platform_claim', {
      value: `${claimValue.split('.')[0]}.forged`,
      path: '/_platform/auth/claim',
      attributes: '',
    });
    expect((await other.request('/_platform/auth/claim', { method: 'POST' })).status).toBe(403);
    const own = await desk.request('/_platform/auth/claim', { method: 'POST' });
    expect(own.status).toBe(303);
    // Replaying the claim cookie makes no second session.
    other.jar.set('platform_claim', {
      value: claimValue,
      path: '/_platform/auth/claim',
      attributes: '',
    });
    const replay = await other.request('/_platform/auth/claim', { method: 'POST' });
    expect(replay.status).toBe(409);
    expect(other.cookie('platform_session')).toBeUndefined();
  });

  it('shows a clear page for a used link', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA);
    await browser.confirmLink(token);
    const again = await browser.navigate(`/_platform/auth/confirm?token=${token}`);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This link was already used');
  });

  it('expires links after 15 minutes with a clear page', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA);
    const review = await browser.navigate(`/_platform/auth/confirm?token=${token}`);
    const preview = field(await review.text(), 'preview');
    env.clock.advance(15 * MINUTE);
    const late = await browser.navigate(`/_platform/auth/confirm?token=${token}`);
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('This link has expired');
    expect(
      (await browser.request('/_platform/auth/confirm', { form: { token, preview } })).status,
    ).toBe(403);
    const claim = await browser.request('/_platform/auth/claim', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(claim.status).toBe(410);
  });

  it('shows a clear page for an unknown link', async () => {
    const page = await new FakeBrowser(env.broker).navigate('/_platform/auth/confirm?token=nope');
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('This link is not valid');
  });

  it('refuses a link request without the form token', async () => {
    const browser = new FakeBrowser(env.broker);
    await browser.navigate('/_platform/auth/sign-in');
    const response = await browser.request('/_platform/auth/email-link', {
      form: { email: ADA, csrf: 'x' },
    });
    expect(response.status).toBe(403);
  });

  it('refuses a NUL character in the form with 400, before the database sees it', async () => {
    const browser = new FakeBrowser(env.broker);
    const csrf = await browser.csrf();
    const response = await browser.request('/_platform/auth/email-link', {
      form: { email: 'nul\u0000@example.com', returnTo: '/', csrf },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('NUL');
  });

  it('registers an unknown address on confirmation, as confirmed', async () => {
    const browser = new FakeBrowser(env.broker);
    const claim = await browser.signInByEmail('new@example.com');
    expect(claim.status).toBe(200);
    expect(await env.broker.auth.account('new@example.com')).toMatchObject({
      state: 'confirmed',
    });
  });

  it('never redirects back to another site', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA, 'https://evil.example/steal');
    await browser.confirmLink(token);
    const claim = await browser.request('/_platform/auth/claim', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(await claim.json()).toEqual({ state: 'approved', returnTo: '/' });
    expect(await latestLinkToken(env.broker, ADA)).toBe(token);
  });
});
