// The organisation the integration suites measure: examples/sales-crm's crm and sales apps in a
// temp folder under one workspace (PGlite, real Deno Functions), an organisation administrator,
// and an organisation connection to `crm` bound into the sales app's `crm` slot.
import { cp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startWorkspace,
  type WorkspaceOptions,
  type WorkspaceServer,
} from '../../packages/broker/src/app/start-workspace.ts';
import { Accounts } from '../../packages/broker/src/auth/accounts.ts';
import { defaultSnapshotPath } from '../../packages/broker/src/db/open-database.ts';
import { systemClock } from '../../packages/broker/src/kernel/clock.ts';
import { Memberships } from '../../packages/broker/src/org/memberships.ts';

const example = fileURLToPath(new URL('../../examples/sales-crm', import.meta.url));

/** The running organisation and what the suites send to it. */
export interface SalesCrm {
  readonly ws: WorkspaceServer;
  /** The copied example's folder. */
  readonly root: string;
  /** The connection bound into the sales app's `crm` slot. */
  readonly connectionId: string;
  /** A request to the owner API with the dev token. */
  owner(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the organisation; `prepare` may change the copied apps first. The connection's API key
 * is `key`.
 */
export async function startSalesCrm(options: {
  readonly name: string;
  readonly key: string;
  readonly environment?: WorkspaceOptions['environment'];
  readonly prepare?: (root: string) => Promise<void>;
}): Promise<SalesCrm> {
  const root = join(tmpdir(), `bench-${options.name}-${process.pid}`);
  await rm(root, { recursive: true, force: true });
  await cp(example, root, { recursive: true });
  await options.prepare?.(root);
  const ws = await startWorkspace({
    appDirs: [join(root, 'crm'), join(root, 'sales')],
    workspaceDir: root,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: defaultSnapshotPath(),
    ...(options.environment ? { environment: options.environment } : {}),
    logWriter: () => {},
  });
  const close = async () => {
    await ws.close();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const central = ws.apps[0]!.broker.central;
    const ada = await new Accounts(central, central, systemClock).create(
      'ada@example.com',
      'confirmed',
    );
    // ada owns crm, so she may also choose its test connection (Edit access).
    await ws.authority.setOwner('crm', ada.id);
    const members = new Memberships(central);
    const [admin] = (await members.list()).filter((m) => m.role === 'administrator');
    await members.setRole(admin!.accountId, 'ada@example.com', 'administrator');
    const owner = (path: string, init: RequestInit = {}) =>
      fetch(`${ws.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
      });
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
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `CRM_API_KEY=${options.key}`,
    });
    const { connections } = (await (await owner('/v1/apps/crm/connections')).json()) as {
      connections: { id: string }[];
    };
    return { ws, root, connectionId: connections[0]!.id, owner, close };
  } catch (error) {
    await close();
    throw error;
  }
}
