// Which company an account belongs to (spec 2.1, 5.2): exactly one, from its creation. The first
// account founds the organisation; an address an administrator invited joins it when it signs
// up; any other account (an app's end user registering) gets a personal company of its own.
// Signing in or changing the address never moves it; an invitation the person accepts does.
import { isPlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/auth/accounts.ts';
import type { Database } from '../../src/db/database.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';
import { openTestCentral } from '../helpers/db.ts';

let central: Database;
let clock: TestClock;
let accounts: Accounts;
let members: Memberships;

beforeEach(async () => {
  central = await openTestCentral();
  clock = new TestClock();
  accounts = new Accounts(central, central, clock);
  members = new Memberships(central, clock);
}, 60_000);
afterEach(() => central?.close());

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (isPlatformError(error) ? error.code : String(error)),
  );

/** Each account's company: `organisation` (with its role) or `personal`, and how many it has. */
async function companies(): Promise<Record<string, string>> {
  const { rows } = await central.query<{
    email: string;
    role: string | null;
    personal: boolean;
    n: number;
  }>(
    `SELECT a.email, m.role, p.account_id IS NOT NULL AS personal,
       (m.account_id IS NOT NULL)::int + (p.account_id IS NOT NULL)::int AS n
     FROM platform.accounts a
     LEFT JOIN platform.memberships m ON m.account_id = a.id
     LEFT JOIN platform.personal_companies p ON p.account_id = a.id
     ORDER BY a.email`,
  );
  for (const row of rows) expect(row.n, `${row.email} belongs to one company`).toBe(1);
  return Object.fromEntries(rows.map((r) => [r.email, r.role ?? (r.personal ? 'personal' : '?')]));
}

describe('company assignment', () => {
  it('founds the organisation with the first account and gives a stranger a personal company', async () => {
    await accounts.create('ada@example.com', 'confirmed');
    await accounts.create('end-user@example.com', 'unconfirmed');
    expect(await companies()).toEqual({
      'ada@example.com': 'administrator',
      'end-user@example.com': 'personal',
    });
    expect((await members.list()).map((m) => m.email)).toEqual(['ada@example.com']);
  });

  it('lets an invited address join when it signs up, while the invitation lives', async () => {
    const ada = (await accounts.create('ada@example.com', 'confirmed')).id;
    expect(await members.invite(ada, 'Bob@Example.com')).toEqual({
      email: 'bob@example.com',
      state: 'invited',
      expiresAt: new Date(clock.now().getTime() + limits.invitationSeconds * 1000).toISOString(),
    });
    await members.invite(ada, 'late@example.com');
    await accounts.create('bob@example.com', 'confirmed');
    clock.advance(limits.invitationSeconds * 1000 + 1);
    await accounts.create('late@example.com', 'confirmed');
    expect(await companies()).toEqual({
      'ada@example.com': 'administrator',
      'bob@example.com': 'member',
      'late@example.com': 'personal',
    });
    // The invitation was used up by the sign-up.
    expect(await members.invite(ada, 'bob@example.com')).toMatchObject({ state: 'member' });
  });

  it('moves an existing account into the organisation only when it accepts', async () => {
    const ada = (await accounts.create('ada@example.com', 'confirmed')).id;
    const eve = (await accounts.create('eve@example.com', 'confirmed')).id;
    expect(await codeOf(members.accept(eve))).toBe('INVITATION_NOT_FOUND');
    expect(await members.invited(eve)).toBe(false);
    await members.invite(ada, 'eve@example.com');
    // Being invited, or signing in, moves nothing.
    expect(await members.invited(eve)).toBe(true);
    expect((await companies())['eve@example.com']).toBe('personal');
    expect(await members.accept(eve)).toEqual({
      accountId: eve,
      email: 'eve@example.com',
      role: 'member',
    });
    expect((await companies())['eve@example.com']).toBe('member');
    expect(await members.invited(eve)).toBe(false);
    // Accepting again changes nothing; leaving gives a personal company back.
    expect((await members.accept(eve)).role).toBe('member');
    await members.remove(eve, 'eve@example.com');
    expect((await companies())['eve@example.com']).toBe('personal');
    expect(await codeOf(members.accept(eve))).toBe('INVITATION_NOT_FOUND');
  });

  it('refuses an expired invitation, and invitations from anyone but an administrator', async () => {
    const ada = (await accounts.create('ada@example.com', 'confirmed')).id;
    const eve = (await accounts.create('eve@example.com', 'confirmed')).id;
    expect(await codeOf(members.invite(eve, 'mal@example.com'))).toBe('ROLE_CHANGE_FORBIDDEN');
    expect(await codeOf(members.invite(ada, 'not an address'))).toBe('INVALID_INPUT');
    await members.invite(ada, 'eve@example.com');
    clock.advance(limits.invitationSeconds * 1000 + 1);
    expect(await members.invited(eve)).toBe(false);
    expect(await codeOf(members.accept(eve))).toBe('INVITATION_NOT_FOUND');
    expect((await companies())['eve@example.com']).toBe('personal');
    // The digest of the address is kept, never the address.
    const { rows } = await central.query('SELECT * FROM platform.invitations');
    expect(JSON.stringify(rows)).not.toContain('eve@example.com');
  });
});
