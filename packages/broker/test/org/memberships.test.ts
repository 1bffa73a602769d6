// The organisation's members in the central store: every account belongs to exactly one company
// (the organisation, or a personal company of its own) from its creation; only an invitation the
// person accepts brings it in; only administrators change roles; the only administrator cannot
// step down or leave; a refused change writes nothing.
import { isPlatformError } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { openTestCentral } from '../helpers/db.ts';
import { organisationMembers } from '../helpers/organisation.ts';

let central: Database;
let members: Memberships;
const ids: Record<string, string> = {};

beforeAll(async () => {
  central = await openTestCentral();
  Object.assign(
    ids,
    await organisationMembers(central, ['ada@example.com', 'bob@example.com', 'cy@example.com']),
  );
  members = new Memberships(central);
}, 60_000);

afterAll(() => central?.close());

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (isPlatformError(error)) return { code: error.code, status: error.status };
    throw error;
  }
  throw new Error('expected a PlatformError');
};

describe('the organisation', { timeout: 30_000 }, () => {
  it('has the invited accounts as members, the first as administrator', async () => {
    expect(await members.list()).toEqual([
      { accountId: ids['ada@example.com'], email: 'ada@example.com', role: 'administrator' },
      { accountId: ids['bob@example.com'], email: 'bob@example.com', role: 'member' },
      { accountId: ids['cy@example.com'], email: 'cy@example.com', role: 'member' },
    ]);
  });

  it('lets only administrators change roles', async () => {
    expect(
      await codeOf(members.setRole(ids['bob@example.com']!, 'cy@example.com', 'administrator')),
    ).toEqual({ code: 'ROLE_CHANGE_FORBIDDEN', status: 403 });
    expect(await members.roleOf(ids['cy@example.com']!)).toBe('member');
    expect(
      await codeOf(members.setRole(ids['ada@example.com']!, 'nobody@example.com', 'member')),
    ).toEqual({ code: 'MEMBER_NOT_FOUND', status: 404 });
  });

  it('says who the only administrator is and how to name another', async () => {
    const ada = ids['ada@example.com']!;
    const messageOf = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => (isPlatformError(error) ? error.message : String(error)),
      );
    const expected =
      "ada@example.com is the organisation's only administrator: make another member administrator first (platform org role <email> administrator).";
    expect(await messageOf(members.setRole(ada, 'ada@example.com', 'member'))).toBe(expected);
    expect(await messageOf(members.remove(ada, 'ada@example.com'))).toBe(expected);
  });

  it('keeps the only administrator until another member is one', async () => {
    const ada = ids['ada@example.com']!;
    expect(await codeOf(members.setRole(ada, 'ada@example.com', 'member'))).toEqual({
      code: 'LAST_ADMINISTRATOR',
      status: 409,
    });
    expect(await codeOf(members.remove(ada, 'ada@example.com'))).toEqual({
      code: 'LAST_ADMINISTRATOR',
      status: 409,
    });
    expect(await members.roleOf(ada)).toBe('administrator');
    await members.setRole(ada, 'bob@example.com', 'administrator');
    await members.remove(ada, 'ada@example.com');
    expect(await members.roleOf(ada)).toBeUndefined();
    expect((await members.list()).map((m) => [m.email, m.role])).toEqual([
      ['bob@example.com', 'administrator'],
      ['cy@example.com', 'member'],
    ]);
    // A member may leave; removing someone else takes an administrator.
    expect(await codeOf(members.remove(ids['cy@example.com']!, 'bob@example.com'))).toEqual({
      code: 'ROLE_CHANGE_FORBIDDEN',
      status: 403,
    });
  });
});
