// Every integration call is audited (spec 6.3), a call refused before it reaches a binding or
// the provider included: an undeclared slot or operation, a capability the slot does not
// request, a `calling_user` slot without a signed-in user. Each row carries the code the call
// was refused with, and on the embedded store it is journaled like any other row, so it
// survives the broker's restart.
import { isPlatformError } from '@platform/errors';
import { parseManifest } from '@platform/schema/manifest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCentralStore } from '../../src/app/open-central.ts';
import type { Database } from '../../src/db/database.ts';
import {
  type OrgIntegrations,
  openOrgIntegrations,
} from '../../src/integrations/org-integrations.ts';
import { type Caller, systemCaller } from '../../src/kernel/caller.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { orgApp } from './helpers.ts';

const head = 'schemaVersion: 3\nruntime:\n  sdk:\n    version: 2.6.0\n';
const crm = parseManifest(`${head}functions:
  - { name: op, entrypoint: f.ts, access: system }
provides:
  integration:
    name: crm
    title: CRM
    capabilities:
      - { name: contacts.read, description: Read. }
      - { name: deals.read, description: Deals. }
    operations:
      - { name: contacts.find, description: Find., capability: contacts.read, function: op, fake: { id: 1 } }
      - { name: deals.list, description: Deals., capability: deals.read, function: op, fake: [] }
`).manifest!;
const shop = parseManifest(`${head}integrations:
  crm: { provider: custom, integration: crm, account: app, capabilities: [contacts.read] }
  mine: { provider: custom, integration: crm, account: calling_user, capabilities: [contacts.read] }
`).manifest!;
const apps = [orgApp('crm', crm), orgApp('shop', shop)];

let dir: { path: string; remove: () => Promise<void> };
let central: Database;
let org: OrgIntegrations;

async function open(): Promise<void> {
  central = await openCentralStore({
    dir: dir.path,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
  });
  org = await openOrgIntegrations({
    central,
    dir: dir.path,
    apps: () => apps,
    baseUrl: () => 'http://localhost:4310',
    print: () => {},
  });
}

beforeAll(async () => {
  dir = await tempDir('refused-calls-');
  await open();
}, 60_000);
afterAll(async () => {
  await org?.stop();
  await central?.close();
  await dir?.remove();
});

const call = async (slot: string, operation: string, caller: Caller = systemCaller()) => {
  try {
    return await org.calls.call({
      consumerAppId: 'shop',
      manifest: shop,
      caller,
      slot,
      operation,
      input: {},
      requestId: 'req_1',
    });
  } catch (error) {
    if (isPlatformError(error)) return error.code;
    throw error;
  }
};

describe('a call refused before dispatch', () => {
  it('is audited with the code it was refused with, and the row survives a restart', async () => {
    expect(await call('nowhere', 'contacts.find')).toBe('INTEGRATION_SLOT_NOT_DECLARED');
    expect(await call('crm', 'contacts.delete')).toBe('INTEGRATION_OPERATION_NOT_FOUND');
    expect(await call('crm', 'deals.list')).toBe('INTEGRATION_CAPABILITY_NOT_GRANTED');
    expect(await call('mine', 'contacts.find')).toBe('INTEGRATION_USER_REQUIRED');
    expect(await call('crm', 'contacts.find')).toEqual({ id: 1 });

    // The broker stops and starts again: the journaled rows reached the table.
    await org.stop();
    await central.close();
    await open();
    const rows = (await org.audit.list('shop')).reverse();
    expect(
      rows.map(({ slot, operation, integration, providerAppId, environment, mode, result }) => ({
        slot,
        operation,
        integration,
        providerAppId,
        environment,
        mode,
        result,
      })),
    ).toEqual([
      {
        slot: 'nowhere',
        operation: 'contacts.find',
        integration: null,
        providerAppId: null,
        environment: 'development',
        mode: 'fake',
        result: 'INTEGRATION_SLOT_NOT_DECLARED',
      },
      {
        slot: 'crm',
        operation: 'contacts.delete',
        integration: 'crm',
        providerAppId: 'crm',
        environment: 'development',
        mode: 'fake',
        result: 'INTEGRATION_OPERATION_NOT_FOUND',
      },
      {
        slot: 'crm',
        operation: 'deals.list',
        integration: 'crm',
        providerAppId: 'crm',
        environment: 'development',
        mode: 'fake',
        result: 'INTEGRATION_CAPABILITY_NOT_GRANTED',
      },
      {
        slot: 'mine',
        operation: 'contacts.find',
        integration: 'crm',
        providerAppId: 'crm',
        environment: 'development',
        mode: 'fake',
        result: 'INTEGRATION_USER_REQUIRED',
      },
      {
        slot: 'crm',
        operation: 'contacts.find',
        integration: 'crm',
        providerAppId: 'crm',
        environment: 'development',
        mode: 'fake',
        result: 'ok',
      },
    ]);
    expect(rows.every((row) => row.connectionId === null)).toBe(true);
  });
});
