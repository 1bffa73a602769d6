// The authority facts of spec 5.3/5.4 in the central store: who may Use, Administer and Edit
// each app of the organisation, read live on every check; setters that name an unknown app or a
// non-member write nothing.
import { isPlatformError } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { type CentralAuthority, centralAuthority } from '../../src/org/authority.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { openTestCentral } from '../helpers/db.ts';
import { organisationMembers } from '../helpers/organisation.ts';

let central: Database;
let authority: CentralAuthority;
// ada: the organisation's administrator; bob, cy: members; out: a former member.
const id: Record<string, string> = {};

beforeAll(async () => {
  central = await openTestCentral();
  const ids = await organisationMembers(
    central,
    ['ada', 'bob', 'cy', 'out'].map((name) => `${name}@example.com`),
  );
  for (const name of ['ada', 'bob', 'cy', 'out']) id[name] = ids[`${name}@example.com`]!;
  await new Memberships(central).remove(id.ada!, 'out@example.com');
  authority = centralAuthority(central);
  await authority.register(['crm', 'notes']);
}, 60_000);

afterAll(() => central?.close());

const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (isPlatformError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a PlatformError');
};

describe('authority facts', { timeout: 30_000 }, () => {
  it('default to: every member uses, the owner and administrators administer, the owner edits', async () => {
    await authority.setOwner('crm', id.bob!);
    expect(await authority.facts('crm')).toEqual({
      appId: 'crm',
      ownerAccountId: id.bob,
      use: { kind: 'organisation' },
      administer: { kind: 'accounts', accountIds: [] },
      editorAccountIds: [],
    });
    expect(await authority.mayUse('crm', id.cy!)).toBe(true);
    expect(await authority.mayAdminister('crm', id.cy!)).toBe(false);
    expect(await authority.mayAdminister('crm', id.bob!)).toBe(true);
    expect(await authority.mayAdminister('crm', id.ada!)).toBe(true);
    expect(await authority.mayEdit('crm', id.bob!)).toBe(true);
    expect(await authority.mayEdit('crm', id.ada!)).toBe(false);
    expect(await authority.isAdministrator(id.ada!)).toBe(true);
    expect(await authority.isMember(id.cy!)).toBe(true);
  });

  it('answers from the store on every call: narrowing an audience counts at once', async () => {
    await authority.setAudience('notes', 'use', { kind: 'accounts', accountIds: [id.cy!] });
    expect(await authority.mayUse('notes', id.cy!)).toBe(true);
    expect(await authority.mayUse('notes', id.bob!)).toBe(false);
    // Administrators always may.
    expect(await authority.mayUse('notes', id.ada!)).toBe(true);
    await authority.setAudience('notes', 'administer', { kind: 'organisation' });
    expect(await authority.mayAdminister('notes', id.bob!)).toBe(true);
    await authority.setEditors('notes', [id.cy!, id.cy!]);
    expect(await authority.mayEdit('notes', id.cy!)).toBe(true);
    expect((await authority.facts('notes')).editorAccountIds).toEqual([id.cy]);
    await authority.setEditors('notes', []);
    expect(await authority.mayEdit('notes', id.cy!)).toBe(false);
  });

  it('gives nothing to accounts outside the organisation or for apps it does not have', async () => {
    expect(await authority.isMember(id.out!)).toBe(false);
    expect(await authority.mayUse('crm', id.out!)).toBe(false);
    expect(await authority.mayUse('unknown', id.ada!)).toBe(false);
    expect(await authority.mayEdit('unknown', id.ada!)).toBe(false);
  });

  it('refuses unknown apps and non-members, writing nothing', async () => {
    const before = await authority.facts('crm');
    expect(await codeOf(authority.setAudience('nope', 'use', { kind: 'organisation' }))).toBe(
      'APP_NOT_FOUND',
    );
    expect(
      await codeOf(
        authority.setAudience('crm', 'use', { kind: 'accounts', accountIds: [id.cy!, id.out!] }),
      ),
    ).toBe('MEMBER_NOT_FOUND');
    expect(await codeOf(authority.setEditors('crm', [id.bob!, id.out!]))).toBe('MEMBER_NOT_FOUND');
    expect(await codeOf(authority.setOwner('crm', id.out!))).toBe('MEMBER_NOT_FOUND');
    expect(await codeOf(authority.facts('nope'))).toBe('APP_NOT_FOUND');
    expect(await authority.facts('crm')).toEqual(before);
  });

  it('keeps the facts of known apps when the apps are registered again', async () => {
    const before = await authority.facts('notes');
    await authority.register(['notes', 'crm', 'billing']);
    expect(await authority.facts('notes')).toEqual(before);
    expect((await authority.facts('billing')).ownerAccountId).toBeNull();
  });
});
