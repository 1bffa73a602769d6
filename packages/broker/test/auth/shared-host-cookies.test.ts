// Two apps served on one host name (`localhost:4000` and `localhost:4001`): browsers keep
// cookies per host, not per port, so each app receives the other's `platform_session`. An app
// refuses a session cookie it never issued, but never deletes it: the app that issued it keeps
// its session. Its own ended sessions are still deleted from the browser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAccount, authBroker, FakeBrowser } from './helpers.ts';

type Env = Awaited<ReturnType<typeof authBroker>>;
const PASSWORD = 'a long password';
let notes: Env;
let desk: Env;
// The port the shared browser talks to; the cookie jar is the same for both.
let port: 'notes' | 'desk' = 'notes';
let browser: FakeBrowser;

beforeAll(async () => {
  notes = await authBroker({ auth: { appId: 'notes', visibility: 'public' } });
  desk = await authBroker({ auth: { appId: 'desk', visibility: 'public' } });
  await addAccount(notes.broker, 'pat@example.com', PASSWORD);
  browser = new FakeBrowser(undefined, 'http://localhost', (url, init) =>
    Promise.resolve((port === 'notes' ? notes : desk).broker.app.request(url, init)),
  );
}, 60_000);
afterAll(async () => {
  await notes?.cleanup();
  await desk?.cleanup();
});

const at = (app: 'notes' | 'desk') => {
  port = app;
  return browser;
};

describe('a session cookie another app on the same host issued', () => {
  it('is refused there but never deleted, so its own app keeps the session', async () => {
    expect((await at('notes').signInByPassword('pat@example.com', PASSWORD)).status).toBe(303);
    const cookie = browser.cookie('platform_session');
    expect(cookie).toBeDefined();

    const refused = await at('desk').session();
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'AUTH_REQUIRED' } });
    // Signing out of desk ends nothing of notes' either.
    const csrf = await at('desk').csrf();
    const out = await at('desk').request('/_platform/auth/sign-out', {
      form: { csrf, returnTo: '/' },
    });
    expect(out.status).toBe(303);
    expect(browser.received.filter((line) => /^platform_session=;/.test(line))).toEqual([]);
    expect(browser.cookie('platform_session')).toBe(cookie);

    const kept = await at('notes').session();
    expect(kept.status).toBe(200);
    expect(kept.body.user).toMatchObject({ email: 'pat@example.com' });
  });

  it('is still deleted by the app that issued it once its session ends', async () => {
    const csrf = await at('notes').csrf();
    await at('notes').request('/_platform/auth/sign-out', { form: { csrf, returnTo: '/' } });
    expect(browser.cookie('platform_session')).toBeUndefined();
  });
});
