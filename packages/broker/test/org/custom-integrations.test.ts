// Published integration contracts in a workspace: each app's provides.integration is listed at
// /v1/apps/{appId}/custom-integrations for every app of the organisation; a name two apps
// publish refuses the start; a slot no app serves, or a capability the contract lacks, warns.
import { errorFromResponse } from '@platform/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestInvalidError } from '../../src/app/start-dev.ts';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { headerAuthenticate, writeFiles } from '../helpers/broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const head = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
`;

const provider = (name = 'crm') => `${head}provides:
  integration:
    name: ${name}
    title: Tiny CRM
    description: Contacts of the sales team.
    credentials:
      - name: CRM_API_KEY
        label: API key
      - name: CRM_REGION
        label: Region
        secret: false
        optional: true
    capabilities:
      - name: contacts.read
        description: Read contacts.
`;

const consumer = `${head}integrations:
  crm:
    provider: custom
    integration: crm
    account: app
    capabilities: [contacts.read, contacts.write]
  billing:
    provider: custom
    integration: billing
    account: app
    capabilities: [invoices.read]
`;

let root: { path: string; remove: () => Promise<void> };
let ws: WorkspaceServer;
const lines: string[] = [];

const start = (dirs: string[], print: (line: string) => void = () => {}) =>
  startWorkspace({
    appDirs: dirs,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    authenticate: headerAuthenticate,
    logWriter: print,
  });

beforeAll(async () => {
  root = await tempDir('integrations-');
  // The consumer comes first: it is checked against the provider before that one starts.
  await writeFiles(`${root.path}/shop`, { 'platform.yaml': consumer });
  await writeFiles(`${root.path}/crm`, { 'platform.yaml': provider() });
  await writeFiles(`${root.path}/other/crm-a`, { 'platform.yaml': provider() });
  await writeFiles(`${root.path}/other/crm-b`, { 'platform.yaml': provider() });
  ws = await start([`${root.path}/shop`, `${root.path}/crm`], (line) => lines.push(line));
}, 120_000);

afterAll(async () => {
  await ws?.close();
  await root?.remove();
});

describe('published integration contracts', { timeout: 60_000 }, () => {
  it('lists what the organisation publishes to every app, without Function names or fakes', async () => {
    const auth = { authorization: `Bearer ${ws.devToken}` };
    const expected = {
      integrations: [
        {
          name: 'crm',
          title: 'Tiny CRM',
          description: 'Contacts of the sales team.',
          provider: { appId: 'crm' },
          capabilities: [{ name: 'contacts.read', description: 'Read contacts.' }],
          operations: [],
          events: [],
          credentials: [
            { name: 'CRM_API_KEY', label: 'API key', secret: true, optional: false },
            { name: 'CRM_REGION', label: 'Region', secret: false, optional: true },
          ],
          authorization: null,
        },
      ],
    };
    for (const appId of ['shop', 'crm']) {
      const response = await fetch(`${ws.url}/v1/apps/${appId}/custom-integrations`, {
        headers: auth,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(expected);
    }
    const unknown = await fetch(`${ws.url}/v1/apps/nope/custom-integrations`, { headers: auth });
    expect((await errorFromResponse(unknown)).code).toBe('APP_NOT_FOUND');
  });

  it('warns about a slot no app serves and a capability the contract does not offer', () => {
    const warnings = lines.filter((line) => line.startsWith('[shop]'));
    expect(warnings.some((l) => l.includes('INTEGRATION_NOT_PUBLISHED'))).toBe(true);
    expect(warnings.some((l) => l.includes('INTEGRATION_CAPABILITY_NOT_OFFERED'))).toBe(true);
    expect(lines.filter((l) => l.startsWith('[crm]') && l.includes('INTEGRATION_'))).toEqual([]);
  });

  it("refuses to start two apps that publish the same name (another organisation's folder)", async () => {
    const refused = start([`${root.path}/other/crm-a`, `${root.path}/other/crm-b`]);
    await expect(refused).rejects.toBeInstanceOf(ManifestInvalidError);
    await expect(refused).rejects.toMatchObject({
      errors: [expect.objectContaining({ code: 'INTEGRATION_NAME_TAKEN' })],
    });
  });
});
