import { randomUUID } from 'node:crypto';
import { limits } from '@platform/schema';
import type { Hono } from 'hono';
import { isSameOrigin } from '../auth/csrf.ts';
import { hashPassword, passwordProblem } from '../auth/passwords.ts';
import type { Database } from '../db/database.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { servicePaths } from '../http/paths.ts';
import { addSeconds, type Clock } from '../kernel/clock.ts';
import { randomSecret, sha256 } from '../kernel/crypto.ts';
import { parseEmail } from '../kernel/email.ts';
import { hidden, markup, pageResponse } from '../pages/page-shell.ts';

/** scrypt's cost for the administrator's password, as for every account of the service. */
const PASSWORD_LOG_N = 15;

/**
 * A new one-time setup link's secret when the central store has no platform administrator yet;
 * `undefined` when it has one. Only the secret's hash is stored; a new link ends the unused
 * ones before it, so only the link printed last works.
 */
export async function issueSetupLink(central: Database, clock: Clock): Promise<string | undefined> {
  return central.transaction(async (tx) => {
    await tx.lock('platform serve setup link');
    const { rows } = await tx.query('SELECT 1 FROM platform.platform_admins LIMIT 1');
    if (rows.length > 0) return undefined;
    await tx.query('DELETE FROM platform.setup_links WHERE used_at IS NULL');
    const secret = randomSecret(32);
    const now = clock.now();
    await tx.query(
      'INSERT INTO platform.setup_links (secret_hash, created_at, expires_at) VALUES ($1, $2, $3)',
      [sha256(secret), now, addSeconds(now, limits.setupLinkSeconds)],
    );
    return secret;
  });
}

const invalidLink = () =>
  pageResponse(
    {
      title: 'Setup link not valid',
      forms: false,
      body: `<h1>This setup link is not valid</h1><p>It was used already, has expired, or the service has a platform administrator. Restart <code>platform serve</code> for a new link while it has none.</p>`,
    },
    { status: 410 },
  );

/**
 * The setup form of link `key`: empty, or again after a refused post with the reason
 * (`problem`, HTTP 400) and the address typed (`email`), both shown escaped.
 */
export function setupForm(key: string, problem?: string, email = ''): Response {
  return pageResponse(
    {
      title: 'Set up the platform administrator',
      body: markup`<h1>Set up the platform administrator</h1>
<p class="muted">This link works once. The account you create here administers the service and its organisation.</p>
${problem === undefined ? '' : markup`<p class="error">${problem}</p>`}
<form method="post" action="${servicePaths.setup}">${hidden('key', key)}
<label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required>
<button type="submit">Create the account</button></form>`.toString(),
    },
    { status: problem === undefined ? 200 : 400 },
  );
}

/** Whether the secret names a link that is unused, unexpired, while no administrator exists. */
async function linkIsLive(central: Database, clock: Clock, key: string): Promise<boolean> {
  const { rows } = await central.query(
    `SELECT 1 FROM platform.setup_links
     WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > $2
       AND NOT EXISTS (SELECT 1 FROM platform.platform_admins)`,
    [sha256(key), clock.now()],
  );
  return rows.length > 0;
}

/**
 * The setup page of the first platform administrator at `{base_url}/_platform/setup?key=…`:
 * the link's secret opens a form for an email address and a password; posting it creates the
 * account (confirmed: whoever holds the link printed on the server's terminal runs the service),
 * makes it a platform administrator and an administrator of the organisation, and uses the link
 * up, in one transaction, so two posts of one link make one administrator.
 */
export function mountFirstAdministrator(
  app: Hono<BrokerEnv>,
  deps: { central: Database; clock: Clock },
): void {
  const { central, clock } = deps;
  app.get(servicePaths.setup, async (c) => {
    const key = c.req.query('key') ?? '';
    if (key === '' || !(await linkIsLive(central, clock, key))) return invalidLink();
    return setupForm(key);
  });
  app.post(servicePaths.setup, async (c) => {
    if (!isSameOrigin(c.req.raw)) {
      return pageResponse(
        {
          title: 'Refused',
          forms: false,
          body: '<h1>This form must be sent from its own page.</h1>',
        },
        { status: 403 },
      );
    }
    const form = await c.req.parseBody();
    const key = typeof form.key === 'string' ? form.key : '';
    const rawEmail = typeof form.email === 'string' ? form.email : '';
    const password = typeof form.password === 'string' ? form.password : '';
    if (key === '' || !(await linkIsLive(central, clock, key))) return invalidLink();
    const email = parseEmail(rawEmail);
    if (email === undefined) return setupForm(key, 'Enter a valid email address.', rawEmail);
    const problem = passwordProblem(password);
    if (problem !== undefined) return setupForm(key, problem, email);
    const verifier = await hashPassword(password, PASSWORD_LOG_N);
    const outcome = await central.transaction(async (tx) => {
      await tx.lock('platform serve setup link');
      const now = clock.now();
      // Checked before the link is used up, so a taken address leaves the link working.
      const taken = await tx.query('SELECT 1 FROM platform.accounts WHERE email = $1', [email]);
      if (taken.rows.length > 0) return 'taken' as const;
      const used = await tx.query(
        `UPDATE platform.setup_links SET used_at = $2
         WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > $2
           AND NOT EXISTS (SELECT 1 FROM platform.platform_admins)
         RETURNING 1`,
        [sha256(key), now],
      );
      if (used.rows.length === 0) return 'invalid' as const;
      const id = randomUUID();
      await tx.query(
        `INSERT INTO platform.accounts (id, email, state, confirm_deadline, password_verifier, created_at)
         VALUES ($1, $2, 'confirmed', NULL, $3, $4)`,
        [id, email, verifier, now],
      );
      // The join trigger founds the organisation with the first account; an account made
      // before (an app's end user) leaves this one in a personal company: the setup link's
      // holder administers the organisation whatever came first.
      await tx.query('DELETE FROM platform.personal_companies WHERE account_id = $1', [id]);
      await tx.query(
        `INSERT INTO platform.memberships (account_id, role, joined_at)
         VALUES ($1, 'administrator', $2)
         ON CONFLICT (account_id) DO UPDATE SET role = 'administrator'`,
        [id, now],
      );
      await tx.query('INSERT INTO platform.platform_admins (account_id) VALUES ($1)', [id]);
      return 'made' as const;
    });
    if (outcome === 'invalid') return invalidLink();
    if (outcome === 'taken') {
      return setupForm(key, 'An account with this address exists already; choose another address.');
    }
    return pageResponse({
      title: 'Platform administrator ready',
      forms: false,
      body: markup`<h1>You are the platform administrator</h1><p>${email} administers this service and its organisation. The setup link no longer works.</p>`.toString(),
    });
  });
}
