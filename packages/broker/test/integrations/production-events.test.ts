// The sales-crm example served as production (`platform dev --environment production`): a call
// through the `crm` slot reaches the provider (no fake, no live switch), and an event the
// provider's webhook Function emits is delivered to the sales app's events Function in real
// Deno, recorded with its attempts.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';
import { eventually } from '../e2e/fixture-app.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const example = new URL('../../../../examples/sales-crm', import.meta.url).pathname;
const KEY = 'crm_prod_key_41d07e';

let root: { path: string; remove: () => Promise<void> };
let ws: WorkspaceServer;

beforeAll(async () => {
  root = await tempDir('production-events-');
  await cp(example, root.path, { recursive: true });
  ws = await startWorkspace({
    appDirs: [join(root.path, 'crm'), join(root.path, 'sales')],
    workspaceDir: root.path,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    environment: 'production',
    logWriter: () => {},
  });
  const central = ws.apps[0]!.broker.central;
  const members = new Memberships(central);
  const [first] = (await members.list()).filter((m) => m.role === 'administrator');
  await members.invite(first!.accountId, 'ada@example.com');
  await new Accounts(central, central, new TestClock()).create('ada@example.com', 'confirmed');
  await members.setRole(first!.accountId, 'ada@example.com', 'administrator');
  const ada = (await members.list()).find((m) => m.email === 'ada@example.com')!.accountId;
  await ws.authority.setOwner('crm', ada);
  await ws.authority.setOwner('sales', ada);
}, 180_000);

afterAll(async () => {
  await ws?.close();
  await root?.remove();
});

const owner = (path: string, init: RequestInit = {}) =>
  fetch(`${ws.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
  });

describe('the organisation served as production', () => {
  let connectionId: string;

  it('calls the provider for real: no fake, and no live switch to make', async () => {
    const { url } = (await (
      await owner('/v1/apps/crm/connections/links', {
        method: 'POST',
        body: JSON.stringify({
          kind: 'organisation',
          actingAs: 'ada@example.com',
          bind: { appId: 'sales', slot: 'crm' },
        }),
      })
    ).json()) as { url: string };
    const stored = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ CRM_API_KEY: KEY, CRM_REGION: 'us' }),
    });
    expect(stored.status).toBe(200);
    const { connections } = (await (await owner('/v1/apps/crm/connections')).json()) as {
      connections: { id: string }[];
    };
    connectionId = connections[0]!.id;

    const lookup = await fetch(`http://127.0.0.1:${ws.app('sales')!.port}/api/customers/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'grace@example.com' }),
    });
    expect(lookup.status).toBe(200);
    // The CRM's own contact and the connection's region (the fake is Ada in eu).
    expect(await lookup.json()).toEqual({
      result: { contact: { email: 'grace@example.com', name: 'Grace Hopper' }, region: 'us' },
    });
    const live = await owner('/v1/apps/sales/dev/integrations', {
      method: 'PUT',
      body: JSON.stringify({ slot: 'crm', mode: 'live' }),
    });
    expect(live.status).toBe(501);
    expect(((await live.json()) as { error: { code: string } }).error.code).toBe(
      'FEATURE_NOT_AVAILABLE',
    );
  });

  it('delivers an emitted event to the subscribed slot, once', async () => {
    const { url } = (await (
      await owner(`/v1/apps/crm/connections/${connectionId}/webhook?actingAs=ada@example.com`)
    ).json()) as { url: string };
    const post = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'x-crm-key': KEY, 'x-crm-event': 'contact.updated' },
        body: '{"email":"grace@example.com"}',
      });
    const answer = await post();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ received: 'contact.updated', deliveries: 1 });

    const sales = ws.app('sales')!.broker.db;
    let rows: { id: string; type: string }[] = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ({ rows } = await sales.query<{ id: string; type: string }>(
        'SELECT id, type FROM crm_events',
      ));
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]!.type).toBe('contact.updated');
    // The Function's row commits before the delivery is recorded: wait for the record too.
    await eventually(async () => {
      const { deliveries } = (await (await owner('/v1/apps/sales/integration-events')).json()) as {
        deliveries: { state: string; attempts: number; eventId: string }[];
      };
      expect(deliveries).toEqual([
        expect.objectContaining({ state: 'delivered', attempts: 1, eventId: rows[0]!.id }),
      ]);
    });
  });
});
