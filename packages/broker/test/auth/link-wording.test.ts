// The lifetimes the sign-in texts state come from the limits; the words stay as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authBroker, FakeBrowser, field, MINUTE } from './helpers.ts';

let env: Awaited<ReturnType<typeof authBroker>>;
const ADA = 'ada@example.com';

beforeAll(async () => {
  env = await authBroker({ auth: { visibility: 'public' } });
});
afterAll(() => env?.cleanup());

describe('the email-link texts', () => {
  it('state the 15-minute lifetime in the email, the terminal and the waiting page', async () => {
    const browser = new FakeBrowser(env.broker);
    const csrf = await browser.csrf();
    const page = await browser.request('/_platform/auth/email-link', {
      form: { email: ADA, returnTo: '/', csrf },
    });
    expect(await page.text()).toContain('open the link (valid 15 minutes) and confirm.');
    const [message] = await env.broker.outbox.list(1);
    expect(message?.text).toContain('The link is valid for 15 minutes and works once.');
    expect(env.lines.some((line) => line.includes(`(${ADA}, valid 15 minutes): http`))).toBe(true);
  });

  it('state it again when the link or the claim has expired', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA);
    env.clock.advance(15 * MINUTE);
    const page = await browser.navigate(`/_platform/auth/confirm?token=${token}`);
    expect(await page.text()).toContain(
      'Sign-in links are valid for 15 minutes. Ask for a new one.',
    );
    const claim = await browser.request('/_platform/auth/claim', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(await claim.json()).toEqual({
      state: 'expired',
      message:
        'This sign-in request has expired. Links are valid for 15 minutes. Ask for a new one.',
    });
  });

  it('state the 10 minutes of the confirmation cookie', async () => {
    const browser = new FakeBrowser(env.broker);
    const token = await browser.requestLink(ADA);
    const review = await browser.navigate(`/_platform/auth/confirm?token=${token}`);
    const preview = field(await review.text(), 'preview');
    browser.jar.delete('platform_confirm');
    const refused = await browser.request('/_platform/auth/confirm', { form: { token, preview } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('in the same browser, within 10 minutes.');
  });
});
